#!/bin/sh
# Builds llama.cpp's llama-server from the source npm's node-llama-cpp ships
# (llama/gitRelease.bundle), once, and prints the binary's path. The binary
# is cached outside the work tree; a second run prints the cached path.
#
# Needs npm, git, a C++ compiler and cmake (Debian's; installed with apt-get
# when missing and running as root). Nothing else is downloaded: the web UI
# is left out (-DLLAMA_USE_PREBUILT_UI=OFF).
set -eu

VERSION=3.21.1
# The npm tarball's hashes (npm's integrity and its sha256).
SHA512=E3N0Ev2Va0wzydvXYFwM9Hvyo07PoWjt8T/9GMc43Cvt8YkV/NU/tYUgEMC1grTPv2o9PRjQi0G3Wb5P/awiMg==
SHA256=7a231d6bafa14142a1cbed9893d4ec5bc6041b2a5f5939a623accaab4203c11f

CACHE=${MAGI_CODE_LLAMA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/magi-code}
OUT=$CACHE/llama-server-$VERSION
BIN=$OUT/llama-server
if [ -x "$BIN" ] && [ -f "$OUT/src/models/ggml-vocab-qwen2.gguf" ]; then
	echo "$OUT"
	exit 0
fi

if ! command -v cmake >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		apt-get update -qq >&2 && apt-get install -y -qq cmake >&2
	else
		echo "llama-server.sh: cmake is missing (apt-get install cmake)" >&2
		exit 1
	fi
fi

mkdir -p "$CACHE"
WORK=$(mktemp -d "$CACHE/build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
(cd "$WORK" && npm pack --silent "node-llama-cpp@$VERSION" >/dev/null)
TGZ=$WORK/node-llama-cpp-$VERSION.tgz
got256=$(sha256sum "$TGZ" | cut -d' ' -f1)
got512=$(openssl dgst -sha512 -binary "$TGZ" | base64 -w0)
if [ "$got256" != "$SHA256" ] || [ "$got512" != "$SHA512" ]; then
	echo "llama-server.sh: node-llama-cpp-$VERSION.tgz does not have the pinned hash" >&2
	exit 1
fi
tar -xzf "$TGZ" -C "$WORK" package/llama/gitRelease.bundle
git clone -q "$WORK/package/llama/gitRelease.bundle" "$WORK/src"
rev=$(git -C "$WORK/src" rev-parse HEAD)
cmake -S "$WORK/src" -B "$WORK/src/build" -DLLAMA_USE_PREBUILT_UI=OFF \
	-DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DBUILD_SHARED_LIBS=OFF >&2
cmake --build "$WORK/src/build" --target llama-server -j"${JOBS:-2}" >&2

# Keep the binary and the few source files the model generator reads.
mkdir -p "$WORK/keep/src/models/templates"
cp "$WORK/src/build/bin/llama-server" "$WORK/keep/"
cp "$WORK/src/models/ggml-vocab-qwen2.gguf" "$WORK/keep/src/models/"
cp "$WORK/src/models/templates/Qwen-Qwen2.5-7B-Instruct.jinja" "$WORK/keep/src/models/templates/"
echo "$rev" >"$WORK/keep/REVISION"
rm -rf "$OUT"
mv "$WORK/keep" "$OUT"
echo "$OUT"

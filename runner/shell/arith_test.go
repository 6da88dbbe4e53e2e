package shell

import "testing"

// TestArithmetic: bash evaluates a variable's value as arithmetic wherever
// arithmetic happens, and an array subscript in that value runs command
// substitutions (X='a[$(cmd)]'; echo $((X)) runs cmd, checked with bash
// 5.2). Each context that evaluates a value the check cannot see asks;
// values it can see stay unasked.
func TestArithmetic(t *testing.T) {
	_, at := newLayout(t)
	const x = `X='a[$(rm -f ~/canary/f)]'; `
	tests := []struct {
		cmd  string
		want Reason
	}{
		// The contexts, on a value the script gives.
		{x + `echo $((X))`, ReasonArithmetic},
		{x + `echo $(($X))`, ReasonArithmetic},
		{x + `echo "$((X+1))"`, ReasonArithmetic},
		{x + `echo $[X]`, ReasonArithmetic},
		{x + `((X))`, ReasonArithmetic},
		{x + `(( y = X ))`, ReasonArithmetic},
		{x + `let X`, ReasonArithmetic},
		{x + `let y=X+1`, ReasonArithmetic},
		{x + `for ((i=X; i<1; i++)); do :; done`, ReasonArithmetic},
		{x + `for ((i=0; i<X; i++)); do :; done`, ReasonArithmetic},
		{x + `for ((i=0; i<1; i+=X)); do :; done`, ReasonArithmetic},
		{x + `[[ $X -eq 0 ]]`, ReasonArithmetic},
		{x + `[[ "$X" -ne 0 ]]`, ReasonArithmetic},
		{x + `[[ X -lt 0 ]]`, ReasonArithmetic},
		{x + `[[ 0 -le $X ]]`, ReasonArithmetic},
		{x + `[[ 0 -gt X ]]`, ReasonArithmetic},
		{x + `[[ 0 -ge X ]]`, ReasonArithmetic},
		{x + `declare -i y=X`, ReasonArithmetic},
		{x + `declare -i y; y=$X`, ReasonArithmetic},
		{x + `typeset -i y="$X"`, ReasonArithmetic},
		{x + `f() { local -i y=$X; }; f`, ReasonArithmetic},
		{x + `declare -ai y=(X)`, ReasonArithmetic},
		{x + `a=(1 2); echo ${a[X]}`, ReasonArithmetic},
		{x + `a=(1 2); echo "${a[$X]}"`, ReasonArithmetic},
		{x + `a=(1 2); echo ${#a[X]}`, ReasonArithmetic},
		{x + `a=(1 2); echo ${a[0]:X}`, ReasonArithmetic},
		{x + `a[X]=1`, ReasonArithmetic},
		{x + `a=([X]=1)`, ReasonArithmetic},
		{x + `V=abc; echo ${V:X:1}`, ReasonArithmetic},
		{x + `V=abc; echo ${V:0:X}`, ReasonArithmetic},
		{x + `a=(1); echo $((a[a[X]]))`, ReasonArithmetic},
		{x + `echo $(( $((X)) + 1 ))`, ReasonArithmetic},
		// A chain of names, and $NAME values.
		{x + `Y=X; echo $((Y))`, ReasonArithmetic},
		{x + `Y=$X; echo $((Y+1))`, ReasonArithmetic},
		{x + `Y=X+1; echo $((Y))`, ReasonArithmetic},
		// Values from data: the repository's files.
		{`read X < f; echo $((X))`, ReasonArithmetic},
		{`read -r X Y < f; echo $((Y))`, ReasonArithmetic},
		{`read < f; echo $((REPLY))`, ReasonArithmetic},
		{`mapfile -t L < f; echo $((L[0]))`, ReasonArithmetic},
		{`readarray L < f; echo $((L))`, ReasonArithmetic},
		{`printf -v X %s "$(cat f)"; echo $((X))`, ReasonArithmetic},
		{`printf -vX %s "$(cat f)"; echo $((X))`, ReasonArithmetic},
		{`getopts a: o; echo $((OPTARG))`, ReasonArithmetic},
		{`for X in $(cat f); do echo $((X)); done`, ReasonArithmetic},
		{`for X in *; do [[ $X -gt 1 ]]; done`, ReasonArithmetic},
		{`X=$(cat f); echo $((X))`, ReasonArithmetic},
		{"X=`cat f`; echo $((X))", ReasonArithmetic},
		{`X="$(cat f)"1; echo $((X))`, ReasonArithmetic},
		{`X=$A$B; echo $((X))`, ReasonArithmetic},
		{`echo $(( $(cat f) ))`, ReasonArithmetic},
		{`echo $(( $(cat f) + 1 ))`, ReasonArithmetic},
		{`echo $(( ${X:-0} ))`, ReasonArithmetic},
		{`echo $(( ${!X} ))`, ReasonArithmetic},
		{`[[ $(cat f) =~ (.*) ]]; echo $((BASH_REMATCH[1]))`, ReasonArithmetic},
		{`declare -i y; read y < f`, ReasonArithmetic},
		{`wait -p X; echo $((X))`, ReasonArithmetic},
		{`command declare -i X; X='a[$(rm -f ~/canary/f)]'`, ReasonArithmetic}, // the integer attribute through a wrapper
		{`builtin typeset -i X; read X < f`, ReasonArithmetic},
		{`\declare -i X; X='a[$(rm -f ~/canary/f)]'`, ReasonArithmetic},
		{`command local -i X; read -r X < f`, ReasonArithmetic},
		{`builtin declare -i X; command read X < f`, ReasonArithmetic},
		{`command declare -i X=1; command declare X="$(cat f)"`, ReasonArithmetic},
		{`wait -np X; echo $((X))`, ReasonArithmetic}, // -p in a cluster
		{`wait -f -n -p X; echo $((X))`, ReasonArithmetic},
		{`wait -n -p X; echo $((X))`, ReasonArithmetic},
		{`wait -n -pX; echo $((X))`, ReasonArithmetic},
		{`f() { echo $(($1)); }; f "$(cat f)"`, ReasonArithmetic},
		{`f() { echo $((X)); }`, ""},
		{`f() { echo $(($1)); }; f 'a[$(rm -f ~/canary/f)]'`, ReasonArithmetic},
		{x + `f() { echo $(($1+1)); }; f X`, ReasonArithmetic},
		{x + `f() { echo $(($@)); }; f 1 X`, ReasonArithmetic},
		{`f() { echo $(($1)); }`, ReasonArithmetic}, // called from anywhere: unknown arguments
		{`read 'L[0]' < f; echo $((L))`, ReasonArithmetic},
		{x + `declare -i "y"; y=$X`, ReasonArithmetic},
		{`A=B; B='A+a[$(rm -f ~/canary/f)]'; echo $((A))`, ReasonArithmetic},
		{`read ab < f; X=a; X+=b; echo $((X))`, ReasonArithmetic},
		{`read a1 < f; X=a; X+=1; echo $((X))`, ReasonArithmetic},
		{`read ab < f; declare -i y; X=a; X+=b; echo $((X))`, ReasonArithmetic},
		// Names computed or aliased: nothing is safe.
		{`declare -n X=Y; echo $((X))`, ReasonArithmetic},
		{`read "$n"; echo $((X))`, ReasonArithmetic},
		{`source ./env.sh; echo $((X))`, ReasonArithmetic},
		{`printf "$o" X a; echo $((X))`, ReasonArithmetic},
		{`printf -\v X %s "$(cat f)"; echo $((X))`, ReasonArithmetic},
		{`declare "$o" y=1`, ReasonArithmetic},
		// A literal subscript holding a command substitution: the command
		// is checked.
		{`echo $(( a[$(rm -rf ~/canary)] ))`, ReasonDeleteOutside},
		{`(( a[$(rm -rf ~/canary)] ))`, ReasonDeleteOutside},
		{`a[$(rm -rf ~/canary)]=1`, ReasonDeleteOutside},
		{`echo ${a[$(rm -rf ~/canary)]}`, ReasonDeleteOutside},
		{`[[ a[$(rm -rf ~/canary)] -eq 1 ]]`, ReasonDeleteOutside},
		{`[[ 'a[$(rm -rf ~/canary)]' -eq 1 ]]`, ReasonArithmetic},
		{`let 'a[$(rm -rf ~/canary)]'`, ReasonArithmetic},
		// Names a command evaluates: their subscripts are arithmetic.
		{x + `echo ${!X}`, ReasonArithmetic},
		{x + `echo "${!X:-}"`, ReasonArithmetic},
		{`read X < f; echo ${!X}`, ReasonArithmetic},
		{`declare -n r='a[$(rm -f ~/canary/f)]'; echo $r`, ReasonArithmetic},
		{x + `declare -n r=$X; echo $r`, ReasonArithmetic},
		{x + `local -n r=X`, ""}, // r names X: X's value is not evaluated by the nameref
		{`read 'a[$(rm -f ~/canary/f)]' < f`, ReasonArithmetic},
		{`read -r -p "$p" 'a[$(rm -f ~/canary/f)]' < f`, ReasonArithmetic},
		{`read -ra 'a[$(rm -f ~/canary/f)]' < f`, ReasonArithmetic},
		{x + `read "a[X]" < f`, ReasonArithmetic},
		{x + `read "$X" < f`, ReasonArithmetic},
		{`printf -v 'a[$(rm -f ~/canary/f)]' 1`, ReasonArithmetic},
		{`printf -v'a[$(rm -f ~/canary/f)]' 1`, ReasonArithmetic},
		{`a=(1); unset 'a[$(rm -f ~/canary/f)]'`, ReasonArithmetic},
		{x + `a=(1); unset -v "$X"`, ReasonArithmetic},
		{x + `test -v "$X"`, ReasonArithmetic},
		{`[ -v 'a[$(rm -f ~/canary/f)]' ]`, ReasonArithmetic},
		{x + `[[ -v $X ]]`, ReasonArithmetic},
		{`[[ -v 'a[$(rm -f ~/canary/f)]' ]]`, ReasonArithmetic},
		{x + `[[ -v a[X] ]]`, ReasonArithmetic},
		{`declare 'a[$(rm -f ~/canary/f)]=1'`, ReasonArithmetic},
		{`f() { local 'a[$(rm -f ~/canary/f)]=1'; }; f`, ReasonArithmetic},
		{x + `typeset "$X=1"`, ReasonArithmetic},
		// Reached through a wrapper or a quoted name, which the parser
		// does not read as let or declare; an environment env gives.
		{x + `builtin let X`, ReasonArithmetic},
		{x + `command let y=X+1`, ReasonArithmetic},
		{x + `\let X`, ReasonArithmetic},
		{x + `"let" X`, ReasonArithmetic},
		{`command let "$(cat f)"`, ReasonArithmetic},
		{x + `command declare -i y="$X"`, ReasonArithmetic},
		{x + `builtin typeset -i y=X`, ReasonArithmetic},
		{x + `command declare "$o" y=X`, ReasonArithmetic},
		{`command declare 'a[$(rm -f ~/canary/f)]=1'`, ReasonArithmetic},
		{`env X='a[$(rm -f ~/canary/f)]' bash -c 'echo $((X))'`, ReasonArithmetic},
		{`env X="$(cat f)" bash -c '[[ $X -eq 0 ]]'`, ReasonArithmetic},
		{`env N=3 bash -c 'echo $((N+1))'`, ""},
		{`command let 1+2; builtin declare -i k=3; command declare x=$(cat f); declare y="$(cat f)"`, ""},
		{`command declare -i k; k=3; k=k+1; read -r line < f`, ""},
		// Another reason, when there is one, is named first.
		{`read "$X" < f; rm -rf ~/canary`, ReasonDeleteOutside},
		// What stays unasked.
		{`read -r line < f; printf -v out %s "$line"; unset out; [[ -v line ]]`, ""},
		{`a=(1 2); i=1; unset 'a[i]'; read 'a[0]' < f; echo ${!a[@]} ${!a[*]}`, ""},
		{`declare -n r=a; echo $r`, ""},
		{`read -p "$p" line < f`, ""},
		{`declare 'a[1]=$x'`, ""},
		{`read PA < f; echo ${!PA*}`, ""},
		{`declare -rn r='a[$(rm -f ~/canary/f)]'`, ReasonArithmetic},
		{`unset -f 'a[$(rm -f ~/canary/f)]'`, ""}, // a function's name is not evaluated
		{`export 'a[$(rm -f ~/canary/f)]=1'; readonly 'a[$(rm -f ~/canary/f)]=1'`, ""},
		{`a=(1 2); echo ${!a[@]} ${!a[*]} ${!PA*} ${!PA@}`, ""},
		{`declare -n r='a[1]'; echo $r`, ""},
		{`declare x=1 'y=2'; test -v HOME && echo ${!HOME}`, ""},
		{`for ((i=0;i<3;i++)); do echo $((i*2)); done`, ""},
		{`n=3; echo $((n+1))`, ""},
		{`n=3; m=n; echo $((m*2))`, ""},
		{`n="3"; echo $((n+1))`, ""},
		{`[[ '3' -eq "$#" ]]`, ""},
		{`n=5; [[ "$n" -gt 3 ]]`, ""},
		{`echo $(( $((2)) * 3 ))`, ""},
		{`printf -- '%d' 3; n=1; echo $((n))`, ""},
		{`wait -n; n=1; echo $((n))`, ""},
		{x + `read -p'a[X]:' n < f`, ""}, // an attached prompt is not a name
		{`n=m; m=n; echo $((n))`, ""},    // bash stops the loop with an error
		{`source ./env.sh; echo $((0x1f + 10 + 16#ff))`, ""},
		{`n=0x1f; k=16#ff; echo $((n+k))`, ""},
		{`i=0; i=$((i+1)); echo $((i))`, ""},
		{`echo $((RANDOM%5))`, ""},
		{`echo $(( $# + $? ))`, ""},
		{`a=(1 2 3); echo ${a[1]} ${#a[@]} ${a[@]:1} $((a[2]+1))`, ""},
		{`V=abcdef; echo ${V:1:2}`, ""},
		{`declare -i n=4; n+=1; echo $((n))`, ""},
		{`f() { local -i n=0; n+=2; echo $((n)); }; f`, ""},
		{`declare -i "n"; n=4; n+=1; echo $((n))`, ""},
		{`let i=1 j=i+2`, ""},
		{`[[ $# -eq 0 ]] && echo none`, ""},
		{`n=5; [[ $n -gt 3 ]]`, ""},
		{`set -e; n=3; echo $((n+1))`, ""},
		{`X=$(cat f); [[ $X == 0 ]]`, ""},
		{`read X < f; [ "$X" -eq 0 ]`, ""},
		{`read X < f; test "$X" -eq 0`, ""},
		{`f() { echo $(($1*2)); }; f 3`, ""},
		{`printf '%d\n' 3; n=2; echo $((n))`, ""},
	}
	for _, tt := range tests {
		if _, why := Destructive(tt.cmd, at); why != tt.want {
			t.Errorf("Destructive(%q) = %q, want %q", tt.cmd, why, tt.want)
		}
	}
}

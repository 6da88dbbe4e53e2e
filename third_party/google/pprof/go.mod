module github.com/google/pprof

go 1.19

require (
	github.com/chzyer/readline v1.5.0
	github.com/ianlancetaylor/demangle v0.0.0-20220319035150-800ac71e25c2
)

require golang.org/x/sys v0.0.0-20220310020820-b874c991c1a5 // indirect

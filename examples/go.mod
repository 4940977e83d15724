module github.com/lamgo/lam/examples

go 1.26.0

require github.com/lamgo/lam/libmpi v0.0.0

require (
	github.com/lamgo/lam/shared v0.0.0 // indirect
	github.com/mdlayher/socket v0.8.0 // indirect
	github.com/mdlayher/vsock v1.4.0 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)

replace (
	github.com/lamgo/lam/libmpi => ../libmpi
	github.com/lamgo/lam/shared => ../shared
)

module github.com/lamgo/lam/libmpi

go 1.26.0

replace github.com/lamgo/lam/shared => ../shared

require (
	github.com/lamgo/lam/shared v0.0.0-00010101000000-000000000000
	golang.org/x/sys v0.49.0
)

require (
	github.com/fsnotify/fsnotify v1.10.1 // indirect
	github.com/mdlayher/socket v0.8.0 // indirect
	github.com/mdlayher/vsock v1.4.0 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
)

module github.com/lamgo/lam/shared

go 1.26.0

require github.com/alecthomas/kong v1.17.0

require golang.org/x/sys v0.49.0

require (
	github.com/fsnotify/fsnotify v1.10.1
	github.com/mdlayher/vsock v1.4.0
)

require (
	github.com/mdlayher/socket v0.8.0 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
)

module github.com/lamgo/lam/shared

go 1.26.0

require github.com/alecthomas/kong v1.17.0

require golang.org/x/sys v0.49.0

require github.com/fsnotify/fsnotify v1.10.1

module github.com/lamgo/lam/libmpi

go 1.26.0

replace github.com/lamgo/lam/shared => ../shared

require (
	github.com/lamgo/lam/shared v0.0.0-00010101000000-000000000000
	golang.org/x/sys v0.49.0
)

module github.com/lamgo/lam/libmpi

go 1.26.0

replace github.com/lamgo/lam/shared => ../shared

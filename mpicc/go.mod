module github.com/lamgo/lam/mpicc

go 1.26.0

require github.com/lamgo/lam/shared v0.0.0

replace github.com/lamgo/lam/shared => ../shared

//go:build !race

package colladapter_test

const race = false

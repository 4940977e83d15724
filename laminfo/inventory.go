package main

import (
	"os"
	"runtime"
	"strconv"
	"unsafe"

	"github.com/lamgo/lam/shared/buildinfo"
	"github.com/lamgo/lam/shared/install"
	"github.com/lamgo/lam/shared/ssi"
)

// current describes this build: the version, the installation's paths,
// every registered module and parameter, and the configuration.
func current(paths install.Paths) *Inventory {
	host, _ := os.Hostname()
	inv := &Inventory{
		Version:  buildinfo.Version,
		Paths:    paths,
		Arch:     buildinfo.Arch(),
		Hostname: host,
		Config:   configValues(),
	}
	for k, v := range bindings(paths) {
		inv.Config[k] = v
	}
	for _, f := range ssi.Frameworks {
		for _, m := range ssi.Modules(f) {
			info := m.SSI()
			inv.Modules = append(inv.Modules, ModuleInfo{Type: string(f), Name: info.Name, SSI: ssi.SSIVersion, API: info.API, Version: info.Version})
		}
	}
	for _, p := range ssi.Params() {
		mod := p.Module
		if mod == "" {
			mod = "base"
		}
		inv.Params = append(inv.Params, ParamInfo{Type: string(p.Framework), Module: mod, Name: p.Full, Default: p.Default, Info: p.Info})
	}
	return inv
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// configValues reports how this build is made. The C and Fortran sizes are
// those of the Go types that the MPI library maps the corresponding MPI
// datatypes to (MPI_INT is int32, MPI_DOUBLE_PRECISION is float64, …), so
// they are what a C or Fortran peer must agree with.
func configValues() map[string]string {
	size := func(n uintptr) string { return strconv.Itoa(int(n)) }
	var (
		c8  int8
		cb  bool
		c16 int16
		c32 int32
		c64 int64
		f32 float32
		f64 float64
		ptr uintptr
		x64 complex64
		x12 complex128
	)
	return map[string]string{
		"config:user":                              buildinfo.ConfiguredBy,
		"config:timestamp":                         buildinfo.ConfiguredOn,
		"config:host":                              buildinfo.ConfigureHost,
		"memory_manager:":                          "go",
		"bindings:go":                              "yes",
		"compiler:c:sizeof:char":                   size(unsafe.Sizeof(c8)),
		"compiler:c:sizeof:bool":                   size(unsafe.Sizeof(cb)),
		"compiler:c:sizeof:short":                  size(unsafe.Sizeof(c16)),
		"compiler:c:sizeof:int":                    size(unsafe.Sizeof(c32)),
		"compiler:c:sizeof:long":                   size(unsafe.Sizeof(c64)),
		"compiler:c:sizeof:float":                  size(unsafe.Sizeof(f32)),
		"compiler:c:sizeof:double":                 size(unsafe.Sizeof(f64)),
		"compiler:c:sizeof:pointer":                size(unsafe.Sizeof(ptr)),
		"compiler:c:align:char":                    size(unsafe.Alignof(c8)),
		"compiler:c:align:bool":                    size(unsafe.Alignof(cb)),
		"compiler:c:align:int":                     size(unsafe.Alignof(c32)),
		"compiler:c:align:float":                   size(unsafe.Alignof(f32)),
		"compiler:c:align:double":                  size(unsafe.Alignof(f64)),
		"compiler:fortran:sizeof:integer":          size(unsafe.Sizeof(c32)),
		"compiler:fortran:sizeof:real":             size(unsafe.Sizeof(f32)),
		"compiler:fortran:sizeof:double_precision": size(unsafe.Sizeof(f64)),
		"compiler:fortran:sizeof:complex":          size(unsafe.Sizeof(x64)),
		"compiler:fortran:sizeof:double_complex":   size(unsafe.Sizeof(x12)),
		"compiler:fortran:align:integer":           size(unsafe.Alignof(c32)),
		"compiler:fortran:align:real":              size(unsafe.Alignof(f32)),
		"compiler:fortran:align:double_precision":  size(unsafe.Alignof(f64)),
		"compiler:fortran:align:complex":           size(unsafe.Alignof(x64)),
		"compiler:fortran:align:double_complex":    size(unsafe.Alignof(x12)),
		"compiler:go:command":                      runtime.Version(),
		"option:cxx_exceptions":                    "no",
		"option:threads":                           yesNo(threadSupport),
		"option:romio":                             "no",
		"option:impi":                              "no",
		"option:debug":                             "no",
		"option:purify":                            "no",
	}
}

// threadSupport says whether the MPI library is goroutine-safe
// (MPI_THREAD_MULTIPLE). It becomes true when the MPI core lands.
const threadSupport = false

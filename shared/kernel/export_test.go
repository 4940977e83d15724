package kernel

// Places reports the local clients holding a place in k: all of them,
// and those other than tools (TestClientCap checks the count is exact).
func Places(k *Kernel) (all, nonTools int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.places, k.nonTools
}

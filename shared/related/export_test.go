package related

// UseRanges makes ByID read the way it did before the related buckets (true) or as it does.
func UseRanges(on bool) {
	load = Load
	if on {
		load = loadByRanges
	}
}

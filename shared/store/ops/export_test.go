package ops

// SetScanPage sets the migration's scan page size (tests interrupt it between pages).
func SetScanPage(n int) func() {
	old := scanPage
	scanPage = n
	return func() { scanPage = old }
}

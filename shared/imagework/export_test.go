package imagework

import "github.com/lorekeep/lorekeep/shared/imageproc"

// SetProcess replaces the image processing for a test; the returned func restores it.
func SetProcess(f func([]byte) (imageproc.Result, error)) func() {
	prev := processFile
	processFile = f
	return func() { processFile = prev }
}

package imageproc_test

import (
	"bytes"
	"errors"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/imageproc"
	"github.com/lorekeep/lorekeep/shared/testing/imagetest"
)

func TestProcess(t *testing.T) {
	for _, c := range []struct {
		name                 string
		data                 []byte
		format, ext          string
		w, h, thumbW, thumbH int
	}{
		{"png", imagetest.PNG(640, 320), "png", "png", 640, 320, 200, 100},
		{"jpeg", imagetest.JPEG(300, 600), "jpeg", "jpg", 300, 600, 100, 200},
		{"gif", imagetest.GIF(120, 80), "gif", "png", 120, 80, 120, 80},
		{"webp", imagetest.WebP, "webp", "png", 0, 0, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := imageproc.Process(c.data)
			if err != nil {
				t.Fatal(err)
			}
			if res.Format != c.format || res.Full.Ext != c.ext || res.Thumb.Ext != c.ext {
				t.Fatalf("format %s, ext %s/%s", res.Format, res.Full.Ext, res.Thumb.Ext)
			}
			for _, p := range []imageproc.Picture{res.Full, res.Thumb} {
				if bytes.Contains(p.Data, []byte(imagetest.Secret)) {
					t.Errorf("%s picture keeps the metadata", c.name)
				}
				cfg, _, err := image.DecodeConfig(bytes.NewReader(p.Data))
				if err != nil || cfg.Width != p.Width || cfg.Height != p.Height {
					t.Errorf("picture decodes as %+v, %v; says %dx%d", cfg, err, p.Width, p.Height)
				}
			}
			if c.w != 0 && (res.Full.Width != c.w || res.Full.Height != c.h || res.Thumb.Width != c.thumbW || res.Thumb.Height != c.thumbH) {
				t.Errorf("full %dx%d thumb %dx%d", res.Full.Width, res.Full.Height, res.Thumb.Width, res.Thumb.Height)
			}
			if res.Thumb.Width > imageproc.ThumbSide || res.Thumb.Height > imageproc.ThumbSide {
				t.Errorf("thumb %dx%d", res.Thumb.Width, res.Thumb.Height)
			}
		})
	}
}

func TestProcessRefuses(t *testing.T) {
	png := imagetest.PNG(10, 10)
	for _, c := range []struct {
		name, want string
		data       []byte
	}{
		{"empty", "must be a file", nil},
		{"text", "must be a file of type", []byte("<svg xmlns='http://www.w3.org/2000/svg'></svg>")},
		{"svg named png", "must be a file of type", []byte("<?xml version='1.0'?><svg/>")},
		{"truncated png", "could not be decoded", png[:60]},
		{"bomb by pixels", "pixels", imagetest.BombPNG(5000, 5000)},
		{"bomb by side", "pixels", imagetest.BombPNG(20000, 10)},
		{"huge header", "could not be decoded as png", imagetest.BombPNG(1<<31-1, 1<<31-1)},
		{"jpeg header only", "could not be decoded as jpeg", []byte("\xff\xd8\xff\xe0")},
		{"too many bytes", "larger than", append(png, make([]byte, imageproc.MaxBytes)...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := imageproc.Process(c.data)
			var p *imageproc.Problem
			if !errors.As(err, &p) || !strings.Contains(p.Text, c.want) {
				t.Fatalf("err %v, want a problem with %q", err, c.want)
			}
		})
	}
}

// A bomb is refused from its header: decoding 25 million pixels would allocate 100 MB.
func TestBombAllocatesLittle(t *testing.T) {
	bomb := imagetest.BombPNG(5000, 5000)
	allocs := testing.AllocsPerRun(5, func() { _, _ = imageproc.Process(bomb) })
	if allocs > 50 {
		t.Fatalf("%v allocations for a bomb", allocs)
	}
}

func BenchmarkProcessJPEG(b *testing.B) {
	data := imagetest.JPEG(2000, 1500)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := imageproc.Process(data); err != nil {
			b.Fatal(err)
		}
	}
}

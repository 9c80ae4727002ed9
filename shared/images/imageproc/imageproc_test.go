package imageproc_test

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	_ "image/png"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/images/imageproc"
	"github.com/lorekeep/lorekeep/shared/testing/imagetest"
)

func TestProcess(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name                 string
		data                 []byte
		format, ext          string
		w, h, thumbW, thumbH int
	}{
		{"png", imagetest.PNG(640, 320), "png", "png", 640, 320, 200, 100},
		{"jpeg", imagetest.JPEG(300, 600), "jpeg", "jpg", 300, 600, 100, 200},
		{"animated gif", imagetest.GIF(120, 80), "gif", "gif", 120, 80, 120, 80},
		{"large animated gif", imagetest.GIFFrames(400, 300, 3), "gif", "gif", 400, 300, 200, 150},
		{"still gif", imagetest.GIFFrames(120, 80, 1), "gif", "png", 120, 80, 120, 80},
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
	t.Parallel()
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
		{"gif bomb by frames", "at most 500 frames (this one has 501)", imagetest.BombGIF(1, 1, imageproc.MaxFrames+1)},
		{"gif bomb by pixels", "pixels in all its frames (this one has 64000000)", imagetest.BombGIF(10000, 1600, 4)},
		{"gif bomb by screen", "pixels", imagetest.BombGIF(65535, 65535, 2)},
		{"gif frames that do not decode", "could not be decoded as gif", imagetest.BombGIF(100, 100, 3)},
		{"gif of unknown blocks", "could not be decoded as gif", append(imagetest.BombGIF(10, 10, 0)[:19], 0x99, 0x3b)},
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

// A bomb is refused from its headers: decoding 25 million pixels would allocate 100 MB, the
// animation's 64 million pixels 64 MB and more.
func TestBombAllocatesLittle(t *testing.T) {
	for _, bomb := range [][]byte{imagetest.BombPNG(5000, 5000), imagetest.BombGIF(10000, 1600, 4), imagetest.BombGIF(1, 1, 5000)} {
		allocs := testing.AllocsPerRun(5, func() { _, _ = imageproc.Process(bomb) })
		if allocs > 50 {
			t.Fatalf("%v allocations for a bomb", allocs)
		}
	}
}

// An animation keeps its frames, delays and loop, nothing else of the file; its thumbnail is
// its first frame, still.
func TestProcessAnimatedGIF(t *testing.T) {
	t.Parallel()
	res, err := imageproc.Process(imagetest.GIFFrames(400, 300, 3))
	if err != nil {
		t.Fatal(err)
	}
	if res.Full.ContentType != "image/gif" || res.Thumb.ContentType != "image/gif" {
		t.Fatalf("content types %s, %s", res.Full.ContentType, res.Thumb.ContentType)
	}
	g, err := gif.DecodeAll(bytes.NewReader(res.Full.Data))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Image) != 3 || g.Delay[2] != 10 || g.Config.Width != 400 || g.Config.Height != 300 {
		t.Fatalf("%d frames, delays %v, screen %dx%d", len(g.Image), g.Delay, g.Config.Width, g.Config.Height)
	}
	for i, want := range []color.Color{color.White, color.NRGBA{200, 30, 30, 255}, color.Black} {
		if !same(g.Image[i].At(200, 150), want) {
			t.Errorf("frame %d is %v, want %v", i, g.Image[i].At(200, 150), want)
		}
	}
	th, err := gif.DecodeAll(bytes.NewReader(res.Thumb.Data))
	if err != nil || len(th.Image) != 1 || !same(th.Image[0].At(100, 75), color.White) {
		t.Fatalf("thumbnail %v: %d frames", err, len(th.Image))
	}
}

// A JPEG is stored and thumbnailed upright whatever its EXIF orientation, in either byte order,
// and the EXIF is gone.
func TestProcessOrientsJPEG(t *testing.T) {
	t.Parallel()
	red, green, blue, white := color.RGBA{255, 0, 0, 255}, color.RGBA{0, 255, 0, 255}, color.RGBA{0, 0, 255, 255}, color.RGBA{255, 255, 255, 255}
	// The source is 64x32: red, green over blue, white. Quarters of the answer: TL, TR, BL, BR.
	for _, c := range []struct {
		o       uint16
		swapped bool
		want    [4]color.RGBA
	}{
		{0, false, [4]color.RGBA{red, green, blue, white}}, // no tag: as is
		{1, false, [4]color.RGBA{red, green, blue, white}},
		{2, false, [4]color.RGBA{green, red, white, blue}},
		{3, false, [4]color.RGBA{white, blue, green, red}},
		{4, false, [4]color.RGBA{blue, white, red, green}},
		{5, true, [4]color.RGBA{red, blue, green, white}},
		{6, true, [4]color.RGBA{blue, red, white, green}},
		{7, true, [4]color.RGBA{white, green, blue, red}},
		{8, true, [4]color.RGBA{green, white, red, blue}},
		{9, false, [4]color.RGBA{red, green, blue, white}}, // not an orientation: as is
	} {
		for _, motorola := range []bool{false, true} {
			data := imagetest.OrientedJPEG(imagetest.Quadrants(640, 320), c.o, motorola)
			if c.o == 0 {
				var buf bytes.Buffer
				if err := jpeg.Encode(&buf, imagetest.Quadrants(640, 320), nil); err != nil {
					t.Fatal(err)
				}
				data = buf.Bytes()
			}
			res, err := imageproc.Process(data)
			if err != nil {
				t.Fatal(err)
			}
			w, h, tw, th := 640, 320, 200, 100
			if c.swapped {
				w, h, tw, th = 320, 640, 100, 200
			}
			for _, p := range []struct {
				pic  imageproc.Picture
				w, h int
			}{{res.Full, w, h}, {res.Thumb, tw, th}} {
				if bytes.Contains(p.pic.Data, []byte(imagetest.Secret)) {
					t.Errorf("orientation %d keeps the EXIF", c.o)
				}
				img, err := jpeg.Decode(bytes.NewReader(p.pic.Data))
				if err != nil {
					t.Fatal(err)
				}
				if b := img.Bounds(); b.Dx() != p.w || b.Dy() != p.h || p.pic.Width != p.w || p.pic.Height != p.h {
					t.Fatalf("orientation %d: %v, says %dx%d, want %dx%d", c.o, b, p.pic.Width, p.pic.Height, p.w, p.h)
				}
				at := [4]image.Point{{p.w / 4, p.h / 4}, {3 * p.w / 4, p.h / 4}, {p.w / 4, 3 * p.h / 4}, {3 * p.w / 4, 3 * p.h / 4}}
				for q, pt := range at {
					if !same(img.At(pt.X, pt.Y), c.want[q]) {
						t.Errorf("orientation %d (motorola %v), %dx%d: quarter %d is %v, want %v", c.o, motorola, p.w, p.h, q, img.At(pt.X, pt.Y), c.want[q])
					}
				}
			}
		}
	}
}

// same says whether two colours are alike within a JPEG's loss.
func same(a, b color.Color) bool {
	r1, g1, b1, _ := a.RGBA()
	r2, g2, b2, _ := b.RGBA()
	d := func(x, y uint32) bool { return x>>8 < y>>8+24 && y>>8 < x>>8+24 }
	return d(r1, r2) && d(g1, g2) && d(b1, b2)
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

func BenchmarkProcessJPEGOriented(b *testing.B) {
	data := imagetest.OrientedJPEG(imagetest.Quadrants(2000, 1500), 6, false)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := imageproc.Process(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkProcessAnimatedGIF(b *testing.B) {
	data := imagetest.GIFFrames(500, 500, 100) // 25 million pixels in all
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := imageproc.Process(data); err != nil {
			b.Fatal(err)
		}
	}
}

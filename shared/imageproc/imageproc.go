// Package imageproc turns an uploaded or fetched file into the two pictures a record serves:
// the original re-encoded (so nothing of the file but its pixels survives: no metadata, no
// trailing data, no polyglot) and a thumbnail. Only what decodes as PNG, JPEG, GIF or WebP is an
// image, whatever its name or Content-Type says; dimensions are checked from the header before
// any pixel is decoded, so a small file that would inflate to gigabytes (a decompression bomb)
// costs a header read.
package imageproc

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/webp"
)

// Bounds of one image: its bytes as received, its pixels once decoded (decoding holds 4 bytes a
// pixel: 64 MB at the limit, within the image functions' memory), and each side.
const (
	MaxBytes  = 4 << 20
	MaxPixels = 16_000_000
	MaxSide   = 10_000
	// ThumbSide is the box the thumbnail fits in (aspect kept, never enlarged).
	ThumbSide = 200
	// jpegQuality is what photos are re-encoded with.
	jpegQuality = 85
)

// Problem is a file that is not an acceptable image; its text completes "The image ...".
type Problem struct{ Text string }

func (p *Problem) Error() string { return "The image " + p.Text }

// Picture is one encoded picture.
type Picture struct {
	Data          []byte
	ContentType   string
	Ext           string
	Width, Height int
}

// Result is an image processed: the full picture and its thumbnail.
type Result struct {
	Full, Thumb Picture
	// Format is what the file was ("png", "jpeg", "gif", "webp").
	Format string
}

func problem(format string, a ...any) error { return &Problem{Text: fmt.Sprintf(format, a...)} }

// Process checks data and makes the full picture and its thumbnail. A JPEG stays a JPEG; every
// other format becomes a PNG (lossless; Go has no WebP encoder, and a GIF keeps its first frame).
func Process(data []byte) (Result, error) {
	if len(data) == 0 {
		return Result{}, problem("must be a file.")
	}
	if len(data) > MaxBytes {
		return Result{}, problem("must not be larger than %d KiB.", MaxBytes>>10)
	}
	format, cfg, err := config(data)
	if format == "" {
		return Result{}, problem("must be a file of type: png, jpeg, gif, webp.")
	}
	if err != nil {
		return Result{}, problem("could not be decoded as %s.", format)
	}
	if cfg.Width < 1 || cfg.Height < 1 || cfg.Width > MaxSide || cfg.Height > MaxSide || cfg.Width*cfg.Height > MaxPixels {
		return Result{}, problem("must be at most %d pixels wide and high and %d pixels in all (this one is %dx%d).", MaxSide, MaxPixels, cfg.Width, cfg.Height)
	}
	img, err := decode(format, data)
	if err != nil {
		return Result{}, problem("could not be decoded as %s.", format)
	}
	if b := img.Bounds(); b.Dx() != cfg.Width || b.Dy() != cfg.Height {
		return Result{}, problem("could not be decoded as %s.", format)
	}
	full, err := encode(img, format == "jpeg")
	if err != nil {
		return Result{}, err
	}
	thumb, err := encode(thumbnail(img), format == "jpeg")
	if err != nil {
		return Result{}, err
	}
	return Result{Full: full, Thumb: thumb, Format: format}, nil
}

// config reads the header only. image.DecodeConfig's registry is not used: the formats are
// exactly these four, whatever else a binary links.
func config(data []byte) (string, image.Config, error) {
	r := bytes.NewReader(data)
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		c, err := png.DecodeConfig(r)
		return "png", c, err
	case bytes.HasPrefix(data, []byte("\xff\xd8")):
		c, err := jpeg.DecodeConfig(r)
		return "jpeg", c, err
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		c, err := gif.DecodeConfig(r)
		return "gif", c, err
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		c, err := webp.DecodeConfig(r)
		return "webp", c, err
	}
	return "", image.Config{}, errors.New("unknown format")
}

func decode(format string, data []byte) (image.Image, error) {
	r := bytes.NewReader(data)
	switch format {
	case "png":
		return png.Decode(r)
	case "jpeg":
		return jpeg.Decode(r)
	case "gif":
		return gif.Decode(r) // the first frame only: a GIF's frames lie within its checked screen
	default:
		return webp.Decode(r)
	}
}

func encode(img image.Image, photo bool) (Picture, error) {
	var buf bytes.Buffer
	b := img.Bounds()
	p := Picture{Width: b.Dx(), Height: b.Dy()}
	var err error
	if photo {
		p.ContentType, p.Ext = "image/jpeg", "jpg"
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: jpegQuality})
	} else {
		p.ContentType, p.Ext = "image/png", "png"
		err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img)
	}
	if err != nil {
		return Picture{}, problem("could not be re-encoded.")
	}
	p.Data = buf.Bytes()
	return p, nil
}

// thumbnail fits img in a ThumbSide box, keeping its aspect and never enlarging it. Each
// thumbnail pixel is the average of the source pixels it covers (premultiplied, so transparent
// pixels do not darken it): every source pixel is read once, and no resampling library is
// linked (the image functions' size budget).
func thumbnail(img image.Image) image.Image {
	b := img.Bounds()
	sw, sh := b.Dx(), b.Dy()
	if sw <= ThumbSide && sh <= ThumbSide {
		return img
	}
	w, h := ThumbSide, max(1, sh*ThumbSide/sw)
	if sh > sw {
		w, h = max(1, sw*ThumbSide/sh), ThumbSide
	}
	src, ok := img.(*image.RGBA)
	if !ok {
		src = image.NewRGBA(image.Rect(0, 0, sw, sh))
		draw.Draw(src, src.Bounds(), img, b.Min, draw.Src)
	}
	base := src.PixOffset(src.Rect.Min.X, src.Rect.Min.Y)
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		y0, y1 := y*sh/h, max((y+1)*sh/h, y*sh/h+1)
		for x := 0; x < w; x++ {
			x0, x1 := x*sw/w, max((x+1)*sw/w, x*sw/w+1)
			var sum [4]uint64
			for sy := y0; sy < y1; sy++ {
				row := src.Pix[base+sy*src.Stride:]
				for sx := x0; sx < x1; sx++ {
					p := row[sx*4 : sx*4+4]
					sum[0] += uint64(p[0])
					sum[1] += uint64(p[1])
					sum[2] += uint64(p[2])
					sum[3] += uint64(p[3])
				}
			}
			n := uint64((y1 - y0) * (x1 - x0))
			d := dst.Pix[y*dst.Stride+x*4:]
			for c := range 4 {
				d[c] = uint8((sum[c] + n/2) / n)
			}
		}
	}
	return dst
}

// Package imageproc turns an uploaded or fetched file into the two pictures a record serves:
// the original re-encoded (so nothing of the file but its pixels survives: no metadata, no
// trailing data, no polyglot) and a thumbnail. Only what decodes as PNG, JPEG, GIF or WebP is an
// image, whatever its name or Content-Type says; dimensions are checked from the header before
// any pixel is decoded, so a small file that would inflate to gigabytes (a decompression bomb)
// costs a header read. A JPEG is turned upright by its EXIF Orientation tag before its metadata
// is dropped; an animated GIF stays animated (re-encoded), its frames counted and bounded from
// their descriptors before any is decoded.
package imageproc

import (
	"bytes"
	"encoding/binary"
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
	// MaxFrames and MaxAnimationPixels bound an animated GIF: decoded, its frames hold a byte a
	// pixel (50 MB at the limit) and each is re-encoded.
	MaxFrames          = 500
	MaxAnimationPixels = 50_000_000
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

// Process checks data and makes the full picture and its thumbnail. A JPEG stays a JPEG (turned
// upright as its EXIF Orientation says); an animated GIF stays an animated GIF (its thumbnail a
// still GIF of its first frame); every other file becomes a PNG (lossless; Go has no WebP
// encoder).
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
	if format == "gif" {
		frames, area, ok := gifFrames(data)
		switch {
		case !ok:
			return Result{}, problem("could not be decoded as gif.")
		case frames > MaxFrames:
			return Result{}, problem("must have at most %d frames (this one has %d).", MaxFrames, frames)
		case area > MaxAnimationPixels:
			return Result{}, problem("must have at most %d pixels in all its frames (this one has %d).", MaxAnimationPixels, area)
		case frames > 1:
			return animated(data, cfg)
		}
	}
	img, err := decode(format, data)
	if err != nil {
		return Result{}, problem("could not be decoded as %s.", format)
	}
	if b := img.Bounds(); b.Dx() != cfg.Width || b.Dy() != cfg.Height {
		return Result{}, problem("could not be decoded as %s.", format)
	}
	if format == "jpeg" {
		img = orient(img, jpegOrientation(data))
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
// pixels do not darken it): every source pixel is read once, in one pass, with no resampling
// library.
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

// animated re-encodes an animated GIF whose frames gifFrames bounded: frames, delays, disposal
// and loop count are kept, comments and application data are not. The thumbnail is its first
// frame on the logical screen, shrunk and mapped to that frame's palette (a still GIF: the
// thumbnail's path has the picture's extension).
func animated(data []byte, cfg image.Config) (Result, error) {
	g, err := gif.DecodeAll(bytes.NewReader(data))
	if err != nil || len(g.Image) == 0 {
		return Result{}, problem("could not be decoded as gif.")
	}
	var buf bytes.Buffer
	out := &gif.GIF{Image: g.Image, Delay: g.Delay, Disposal: g.Disposal, LoopCount: g.LoopCount,
		Config: g.Config, BackgroundIndex: g.BackgroundIndex}
	if err := gif.EncodeAll(&buf, out); err != nil {
		return Result{}, problem("could not be re-encoded.")
	}
	full := Picture{Data: buf.Bytes(), ContentType: "image/gif", Ext: "gif", Width: cfg.Width, Height: cfg.Height}
	first := g.Image[0]
	screen := image.NewRGBA(image.Rect(0, 0, cfg.Width, cfg.Height))
	draw.Draw(screen, first.Bounds(), first, first.Bounds().Min, draw.Src)
	small := thumbnail(screen)
	pm := image.NewPaletted(small.Bounds(), first.Palette)
	draw.Draw(pm, pm.Rect, small, small.Bounds().Min, draw.Src)
	buf = bytes.Buffer{}
	if err := gif.Encode(&buf, pm, nil); err != nil {
		return Result{}, problem("could not be re-encoded.")
	}
	thumb := Picture{Data: buf.Bytes(), ContentType: "image/gif", Ext: "gif", Width: pm.Rect.Dx(), Height: pm.Rect.Dy()}
	return Result{Full: full, Thumb: thumb, Format: "gif"}, nil
}

// gifFrames walks a GIF's blocks without decompressing any (each step moves forward within
// data) and answers its frames and their declared pixels in all, so that an animation of
// thousands of frames, each a few bytes inflating to megapixels, is refused before decoding.
func gifFrames(data []byte) (frames, area int64, ok bool) {
	if len(data) < 13 {
		return 0, 0, false
	}
	i := 13
	if data[10]&0x80 != 0 {
		i += 3 << (data[10]&7 + 1)
	}
	skipBlocks := func() bool { // data sub-blocks up to their terminator
		for i < len(data) {
			n := int(data[i])
			i += 1 + n
			if n == 0 {
				return true
			}
		}
		return false
	}
	for i < len(data) {
		switch data[i] {
		case 0x3b: // trailer
			return frames, area, true
		case 0x21: // extension: label, sub-blocks
			i += 2
			if !skipBlocks() {
				return frames, area, true // truncated: the decoder judges
			}
		case 0x2c: // image descriptor, optional local table, LZW code size, sub-blocks
			if i+10 > len(data) {
				return frames, area, true
			}
			w, h := binary.LittleEndian.Uint16(data[i+5:]), binary.LittleEndian.Uint16(data[i+7:])
			frames, area = frames+1, area+int64(w)*int64(h)
			packed := data[i+9]
			i += 10
			if packed&0x80 != 0 {
				i += 3 << (packed&7 + 1)
			}
			i++
			if !skipBlocks() {
				return frames, area, true
			}
		default:
			return frames, area, false
		}
	}
	return frames, area, true
}

// jpegOrientation is a JPEG's EXIF Orientation (1..8; 1, upright, when absent or malformed):
// its segments are walked up to the first scan, each read within data and its declared size.
func jpegOrientation(data []byte) int {
	i := 2
	for i+4 <= len(data) {
		if data[i] != 0xff {
			return 1
		}
		marker := data[i+1]
		switch {
		case marker == 0xff: // fill byte
			i++
			continue
		case marker == 0xda || marker == 0xd9: // start of scan, end of image
			return 1
		case marker == 0x01 || marker >= 0xd0 && marker <= 0xd7: // no length
			i += 2
			continue
		}
		size := int(binary.BigEndian.Uint16(data[i+2:]))
		if size < 2 || i+2+size > len(data) {
			return 1
		}
		if seg := data[i+4 : i+2+size]; marker == 0xe1 && bytes.HasPrefix(seg, []byte("Exif\x00\x00")) {
			return exifOrientation(seg[6:])
		}
		i += 2 + size
	}
	return 1
}

// exifOrientation reads tag 0x0112 (a SHORT) from the first IFD of a TIFF structure.
func exifOrientation(t []byte) int {
	if len(t) < 8 {
		return 1
	}
	var bo binary.ByteOrder
	switch string(t[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return 1
	}
	off := uint64(bo.Uint32(t[4:]))
	if bo.Uint16(t[2:]) != 42 || off < 8 || off+2 > uint64(len(t)) {
		return 1
	}
	n, p := int(bo.Uint16(t[off:])), int(off)+2
	for k := 0; k < n && p+12 <= len(t); k, p = k+1, p+12 {
		if bo.Uint16(t[p:]) != 0x0112 {
			continue
		}
		if v := int(bo.Uint16(t[p+8:])); bo.Uint16(t[p+2:]) == 3 && v >= 1 && v <= 8 {
			return v
		}
		return 1
	}
	return 1
}

// orient turns img upright as EXIF orientation o says (2..8: mirrored and/or rotated; 5..8
// swap width and height).
func orient(img image.Image, o int) image.Image {
	if o < 2 || o > 8 {
		return img
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	src := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(src, src.Rect, img, b.Min, draw.Src)
	dw, dh := w, h
	if o >= 5 {
		dw, dh = h, w
	}
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for sy := 0; sy < h; sy++ {
		for sx := 0; sx < w; sx++ {
			var dx, dy int
			switch o {
			case 2:
				dx, dy = w-1-sx, sy
			case 3:
				dx, dy = w-1-sx, h-1-sy
			case 4:
				dx, dy = sx, h-1-sy
			case 5:
				dx, dy = sy, sx
			case 6:
				dx, dy = h-1-sy, sx
			case 7:
				dx, dy = h-1-sy, w-1-sx
			default: // 8
				dx, dy = sy, w-1-sx
			}
			copy(dst.Pix[dy*dst.Stride+dx*4:dy*dst.Stride+dx*4+4], src.Pix[sy*src.Stride+sx*4:])
		}
	}
	return dst
}

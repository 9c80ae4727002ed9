// Package imagetest makes the image files the image tests upload and serve: each accepted
// format, files carrying metadata to strip, and decompression bombs.
package imagetest

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
)

// Secret is the text the files with metadata carry: no processed picture may contain it.
const Secret = "GPS-SECRET-47.3769N-8.5417E"

// WebP is a 300x100 lossy WebP (golang.org/x/image's testdata, BSD licence): Go has no WebP encoder.
//
//go:embed sample.webp
var WebP []byte

func picture(w, h int) image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.NRGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
		}
	}
	return img
}

// PNG is a w x h PNG carrying Secret in a tEXt chunk and after its end.
func PNG(w, h int) []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, picture(w, h)); err != nil {
		panic(err)
	}
	b := buf.Bytes()
	// a tEXt chunk after IHDR (8 bytes of signature, 25 of IHDR)
	text := chunk("tEXt", []byte("Comment\x00"+Secret))
	out := append(append(append([]byte{}, b[:33]...), text...), b[33:]...)
	return append(out, []byte("<script>"+Secret+"</script>")...)
}

// JPEG is a w x h JPEG carrying Secret in an EXIF (APP1) segment.
func JPEG(w, h int) []byte {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, picture(w, h), &jpeg.Options{Quality: 90}); err != nil {
		panic(err)
	}
	b := buf.Bytes()
	payload := append([]byte("Exif\x00\x00"), []byte(Secret)...)
	seg := []byte{0xff, 0xe1, byte((len(payload) + 2) >> 8), byte(len(payload) + 2)}
	return append(append(append([]byte{}, b[:2]...), append(seg, payload...)...), b[2:]...)
}

// GIF is a w x h GIF of two frames with Secret in a comment extension.
func GIF(w, h int) []byte {
	pal := color.Palette{color.Black, color.White, color.NRGBA{200, 30, 30, 255}}
	frame := func(c uint8) *image.Paletted {
		p := image.NewPaletted(image.Rect(0, 0, w, h), pal)
		for i := range p.Pix {
			p.Pix[i] = c
		}
		return p
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, &gif.GIF{Image: []*image.Paletted{frame(1), frame(2)}, Delay: []int{10, 10}}); err != nil {
		panic(err)
	}
	b := buf.Bytes()
	// a comment extension (0x21 0xfe) before the trailer
	comment := append([]byte{0x21, 0xfe, byte(len(Secret))}, append([]byte(Secret), 0)...)
	return append(append(append([]byte{}, b[:len(b)-1]...), comment...), 0x3b)
}

// BombPNG is a tiny PNG whose header claims w x h pixels.
func BombPNG(w, h uint32) []byte {
	b := PNG(1, 1)
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}

func chunk(kind string, data []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	out = append(out, kind...)
	out = append(out, data...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(append([]byte(kind), data...)))
}

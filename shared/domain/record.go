package domain

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// Fields that calendars and locations (the records that own an entity) read the same way.

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// readURL reads an http(s) URL; null or "" clears it.
func readURL(r *Reader, name string) Field[string] {
	f := r.String(name, MaxURLLength)
	if !f.Present() || f.Value == "" {
		return Field[string]{Set: f.Set && !r.Errs.Has(name)}
	}
	u, err := url.Parse(f.Value)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		r.Errs.Add(name, "The "+Label(name)+" must be a valid URL.")
		return Field[string]{}
	}
	return f
}

// readEntry reads the HTML `entry` and sanitises it. Sanitising escapes text ("<" becomes
// "&lt;"), so the bound applies to the stored form too: no entry can outgrow an item.
func readEntry(r *Reader) Field[string] {
	f := r.String("entry", MaxEntryLength)
	if !f.Set || r.Errs.Has("entry") {
		return Field[string]{}
	}
	clean := SanitizeHTML(f.Value)
	if len(clean) > MaxEntryLength {
		r.Errs.Add("entry", "The entry must not be greater than "+strconv.Itoa(MaxEntryLength)+" characters once sanitised.")
		return Field[string]{}
	}
	return Field[string]{Set: true, Value: clean}
}

// readGalleryImages reads entity_image_uuid and entity_header_uuid into image and header:
// gallery images need a superboosted campaign; null or "" clears them.
func readGalleryImages(r *Reader, a Access, image, header *string) {
	for _, g := range []struct {
		name string
		dst  *string
	}{{"entity_image_uuid", image}, {"entity_header_uuid", header}} {
		f := r.String(g.name, 64)
		if !f.Present() {
			if f.Set && !r.Errs.Has(g.name) {
				*g.dst = ""
			}
			continue
		}
		switch {
		case a.Boost != BoostSuperboosted:
			r.Errs.Add(g.name, "The "+Label(g.name)+" requires a superboosted campaign.")
		case !uuidPattern.MatchString(f.Value):
			r.Errs.Add(g.name, "The "+Label(g.name)+" must be a valid UUID.")
		default:
			*g.dst = strings.ToLower(f.Value)
		}
	}
}

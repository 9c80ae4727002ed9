package domain

import (
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/sanitize"
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
// "&lt;"), so the stored form is bounded too, in bytes: no entry can outgrow an item. The
// mentions are bounded here for every record that has an entry (MaxMentionLinks, MaxMentions).
func readEntry(r *Reader) Field[string] {
	f := r.String("entry", MaxEntryLength)
	if !f.Set || r.Errs.Has("entry") {
		return Field[string]{}
	}
	clean := sanitize.HTML(f.Value)
	if len(clean) > MaxEntryLength {
		r.Errs.Add("entry", "The entry must not be greater than "+strconv.Itoa(MaxEntryLength)+" bytes once sanitised.")
		return Field[string]{}
	}
	mentions := Mentions(clean)
	if len(mentions) > MaxMentionLinks {
		r.Errs.Add("entry", "The entry may hold at most "+strconv.Itoa(MaxMentionLinks)+" mentions.")
		return Field[string]{}
	}
	if len(distinctIDs(mentions)) > MaxMentions {
		r.Errs.Add("entry", "The entry may mention at most "+strconv.Itoa(MaxMentions)+" different entities.")
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

// Meta is what every record has: its id, its campaign and its write history.
type Meta struct {
	ID         int64
	CampaignID int64
	CreatedAt  time.Time
	UpdatedAt  time.Time
	CreatedBy  int64
	UpdatedBy  int64
	// Version counts writes; every update is conditional on the version it read.
	Version int64
}

// Base is the record's Meta, for the paths every kind of record shares (CRUD, storage).
func (m *Meta) Base() *Meta { return m }

// StampNew sets the write history of a new record, id given, written at now by its creator.
func (m *Meta) StampNew(id int64, now time.Time) {
	m.ID, m.Version, m.CreatedAt, m.UpdatedAt, m.UpdatedBy = id, 1, now, now, m.CreatedBy
}

// StampUpdate sets the write history of m, written at now over prev.
func (m *Meta) StampUpdate(prev *Meta, now time.Time) { m.Version, m.UpdatedAt = prev.Version+1, now }

// Record is a record kind the shared paths handle: T with its Meta and a deep copy.
type Record[T any] interface {
	*T
	Base() *Meta
	Clone() *T
}

// Owner is what the records that own an entity (calendars, locations) share.
type Owner struct {
	EntityID int64
	Name     string
	Entry    string
	Type     string
	// ImageURL is an image address stored before images were fetched (layout 3 and older);
	// ImagePath the object path of the stored image (ImageLinks), which replaces it.
	ImageURL  string
	ImagePath string
	IsPrivate bool
	Tags      []int64
	// PrivateTags are the ids of Tags naming private tags (kept by the store): non-admins are
	// answered Tags without them (VisibleTags).
	PrivateTags []int64
	// TagsByAdmin: the writer is an admin, who may name private tags and private references
	// (set by ApplyOwner, never stored).
	TagsByAdmin bool
	// Refs are the record's references to other records (its module's reference fields).
	Refs             []Reference
	EntityImageUUID  string
	EntityHeaderUUID string
}

// applyOwner reads the fields every owner takes. The name is required.
func (o *Owner) ApplyOwner(r *Reader, a Access) {
	if f := r.String("name", MaxNameLength); f.Set {
		o.Name = strings.TrimSpace(f.Value)
	}
	if f := readEntry(r); f.Set {
		o.Entry = f.Value
	}
	if f := r.String("type", MaxNameLength); f.Set {
		o.Type = strings.TrimSpace(f.Value)
	}
	if f := r.IDs("tags", MaxTags); f.Set && !r.Errs.Has("tags") {
		o.Tags = distinct(f.Value)
	}
	o.TagsByAdmin = a.IsAdmin()
	if f := r.Bool("is_private"); f.Present() {
		o.IsPrivate = f.Value
	}
	// image and image_url are read by the family (httpapi.Request.ReadImage): they are fetched,
	// decoded and stored, which needs more than the body.
	readGalleryImages(r, a, &o.EntityImageUUID, &o.EntityHeaderUUID)
	r.Required("name", o.Name != "")
}

func (o Owner) Clone() Owner {
	o.Tags = append([]int64(nil), o.Tags...)
	o.Refs = append([]Reference(nil), o.Refs...)
	return o
}

// CheckPrivacy is the is_private rule of every record that has the flag: only an admin may make
// a record private; keeping it private, or making it public, is anyone's who may write.
func (a Access) CheckPrivacy(was, now bool) error {
	if now && !was && !a.IsAdmin() {
		return apperr.ErrForbidden
	}
	return nil
}

// finish ends an Apply: the field errors first, then the privacy rule (was is is_private as
// the record was read; false for a new one).
func Finish(r *Reader, a Access, was, now bool) error {
	if err := r.Err(); err != nil {
		return err
	}
	return a.CheckPrivacy(was, now)
}

// distinct keeps the first of each id, in order: a record carries a tag once.
func distinct(ids []int64) []int64 {
	out := make([]int64, 0, len(ids))
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// VisibleTags is tags as a reader sees them: admins all, everyone else without the ids of
// private tags (round3 3.4's projection: the id of a tag the reader may not see is never shown).
func VisibleTags(tags, private []int64, admin bool) []int64 {
	out := make([]int64, 0, len(tags))
	for _, t := range tags {
		if admin || !slices.Contains(private, t) {
			out = append(out, t)
		}
	}
	return out
}

// ImageSizedExt is the last part of a stored image's path: its pixel size and its file
// extension ("1920x1080.png"). Objects are never rewritten (a new picture is a new path), so
// the size read from the path (ImageSize) is the stored picture's, with no record field to keep.
func ImageSizedExt(width, height int, ext string) string {
	return strconv.Itoa(width) + "x" + strconv.Itoa(height) + "." + ext
}

// ImageSize is the pixel size a stored image's path carries (ImageSizedExt); ok is false for
// a path stored before paths carried it.
func ImageSize(path string) (width, height int64, ok bool) {
	name := path[strings.LastIndexByte(path, '/')+1:]
	parts := strings.Split(name, ".")
	if len(parts) < 3 {
		return 0, 0, false
	}
	w, h, found := strings.Cut(parts[len(parts)-2], "x")
	if !found {
		return 0, 0, false
	}
	width, err1 := strconv.ParseInt(w, 10, 32)
	height, err2 := strconv.ParseInt(h, 10, 32)
	if err1 != nil || err2 != nil || width < 1 || height < 1 {
		return 0, 0, false
	}
	return width, height, true
}

// ImageThumbPath is the object path of the thumbnail of the stored image at path
// ("img/1/x.png" has "img/1/x.thumb.png").
func ImageThumbPath(path string) string {
	if i := strings.LastIndexByte(path, '.'); i > strings.LastIndexByte(path, '/') {
		return path[:i] + ".thumb" + path[i:]
	}
	return path + ".thumb"
}

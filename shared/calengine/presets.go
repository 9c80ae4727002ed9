package calengine

// Preset is a ready-made calendar: POST calendars with "preset" fills every
// structure from it.
type Preset struct {
	Key, Name, Description string
	Definition             Definition
	Date                   Date // the current date of a new calendar
}

// Presets lists the ready-made calendars, fresh copies each call. Their
// facts are checked in presets_test.go against independent computation
// (Julian Day Numbers) or published dates.
func Presets() []Preset {
	out := make([]Preset, len(presets))
	for i, p := range presets {
		p.Definition = cloneDefinition(p.Definition)
		out[i] = p
	}
	return out
}

// PresetByKey finds a preset by its key.
func PresetByKey(key string) (Preset, bool) {
	for _, p := range Presets() {
		if p.Key == key {
			return p, true
		}
	}
	return Preset{}, false
}

var (
	englishMonths = []Month{
		{Name: "January", Length: 31}, {Name: "February", Length: 28}, {Name: "March", Length: 31},
		{Name: "April", Length: 30}, {Name: "May", Length: 31}, {Name: "June", Length: 30},
		{Name: "July", Length: 31}, {Name: "August", Length: 31}, {Name: "September", Length: 30},
		{Name: "October", Length: 31}, {Name: "November", Length: 30}, {Name: "December", Length: 31},
	}
	englishWeek = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
	// Northern hemisphere, the usual dates of the equinoxes and solstices.
	earthSeasons = []Season{
		{Name: "Spring", Month: 3, Day: 20}, {Name: "Summer", Month: 6, Day: 21},
		{Name: "Autumn", Month: 9, Day: 22}, {Name: "Winter", Month: 12, Day: 21},
	}
	// The mean synodic month, new on 2000-01-06 18:14 UT: full moons at
	// floor(offset + 29.530588853k) from 0000-01-01 (Gregorian).
	earthMoon = Moon{ID: 1, Name: "Moon", Fullmoon: "29.530588853", Offset: "7.3488377655", Colour: "grey"}
)

func eras(e ...Era) []Era { return e }

// EarliestYear starts an era that has always been: the lowest year a JavaScript client reads
// exactly.
const EarliestYear = -(1<<53 - 1)

var presets = []Preset{
	{
		Key: "gregorian", Name: "Gregorian",
		Description: "The proleptic Gregorian calendar with astronomical years (year 0 is 1 BC), English names, a week from Monday, leap years by 400,!100,4.",
		Definition: Definition{
			Months: englishMonths, Weekdays: englishWeek, Seasons: earthSeasons, Moons: []Moon{earthMoon},
			// 0000-01-01 is a Saturday, so 0001-01-01 is a Monday.
			StartOffset: 5,
			LeapDays:    []LeapDay{{Name: "Leap Day", Month: 2, Interval: "400,!100,4"}},
			Eras:        eras(Era{Name: "Common Era", Abbreviation: "CE", Year: EarliestYear}),
		},
		Date: Date{Year: 2000, Month: 1, Day: 1},
	},
	{
		Key: "julian", Name: "Julian",
		Description: "The proleptic Julian calendar with astronomical years, English names, a week from Monday, a leap year every 4 years.",
		Definition: Definition{
			Months: englishMonths, Weekdays: englishWeek, Seasons: earthSeasons,
			// Julian 0000-01-01 is a Thursday (0001-01-01 a Saturday).
			StartOffset: 3,
			LeapDays:    []LeapDay{{Name: "Leap Day", Month: 2, Interval: "4"}},
			Eras:        eras(Era{Name: "Anno Domini", Abbreviation: "AD", Year: EarliestYear}),
		},
		Date: Date{Year: 1500, Month: 1, Day: 1},
	},
	{
		Key: "harptos", Name: "Calendar of Harptos",
		Description: "The Forgotten Realms: twelve months of three tendays, five festival days outside the week, Shieldmeet after Midsummer every 4 years, Selûne's 30.4375-day cycle, Dalereckoning.",
		Definition: Definition{
			Months: []Month{
				{Name: "Hammer", Length: 30}, {Name: "Midwinter", Length: 1, Type: Intercalary},
				{Name: "Alturiak", Length: 30}, {Name: "Ches", Length: 30}, {Name: "Tarsakh", Length: 30},
				{Name: "Greengrass", Length: 1, Type: Intercalary},
				{Name: "Mirtul", Length: 30}, {Name: "Kythorn", Length: 30}, {Name: "Flamerule", Length: 30},
				{Name: "Midsummer", Length: 1, Type: Intercalary},
				{Name: "Eleasis", Length: 30}, {Name: "Eleint", Length: 30},
				{Name: "Highharvestide", Length: 1, Type: Intercalary},
				{Name: "Marpenoth", Length: 30}, {Name: "Uktar", Length: 30},
				{Name: "Feast of the Moon", Length: 1, Type: Intercalary},
				{Name: "Nightal", Length: 30},
			},
			Weekdays: []string{"First-day", "Second-day", "Third-day", "Fourth-day", "Fifth-day",
				"Sixth-day", "Seventh-day", "Eighth-day", "Ninth-day", "Tenth-day"},
			Seasons: []Season{
				{Name: "Spring", Month: 4, Day: 19}, {Name: "Summer", Month: 8, Day: 20},
				{Name: "Autumn", Month: 12, Day: 21}, {Name: "Winter", Month: 17, Day: 20},
			},
			Moons:    []Moon{{ID: 1, Name: "Selûne", Fullmoon: "30.4375", Colour: "white"}},
			LeapDays: []LeapDay{{Name: "Shieldmeet", Month: 10, Interval: "4", Intercalary: true}},
			Eras:     eras(Era{Name: "Dalereckoning", Abbreviation: "DR", Year: EarliestYear}),
		},
		Date: Date{Year: 1492, Month: 1, Day: 1},
	},
	{
		Key: "golarion", Name: "Absalom Reckoning (Golarion)",
		Description: "Pathfinder's Golarion: months after the gods, a week from Moonday, Calistril's leap day in years divisible by 8, Absalom Reckoning.",
		Definition: Definition{
			Months: []Month{
				{Name: "Abadius", Length: 31}, {Name: "Calistril", Length: 28}, {Name: "Pharast", Length: 31},
				{Name: "Gozran", Length: 30}, {Name: "Desnus", Length: 31}, {Name: "Sarenith", Length: 30},
				{Name: "Erastus", Length: 31}, {Name: "Arodus", Length: 31}, {Name: "Rova", Length: 30},
				{Name: "Lamashan", Length: 31}, {Name: "Neth", Length: 30}, {Name: "Kuthona", Length: 31},
			},
			Weekdays: []string{"Moonday", "Toilday", "Wealday", "Oathday", "Fireday", "Starday", "Sunday"},
			Seasons: []Season{
				{Name: "Spring", Month: 3, Day: 1}, {Name: "Summer", Month: 6, Day: 1},
				{Name: "Fall", Month: 9, Day: 1}, {Name: "Winter", Month: 12, Day: 1},
			},
			// 12 Gozran 4711 AR, the Inner Sea World Guide's release (Tuesday 12 April 2011), is a Toilday.
			StartOffset: 4,
			LeapDays:    []LeapDay{{Name: "Leap Day", Month: 2, Interval: "8"}},
			Eras:        eras(Era{Name: "Absalom Reckoning", Abbreviation: "AR", Year: 1}),
		},
		Date: Date{Year: 4725, Month: 1, Day: 1},
	},
	{
		Key: "exandria", Name: "Exandrian (Tal'Dorei)",
		Description: "Critical Role's Exandria: eleven months, 328 days, a seven-day week, no leap years, Post-Divergence years.",
		Definition: Definition{
			Months: []Month{
				{Name: "Horisal", Length: 29}, {Name: "Misuthar", Length: 30}, {Name: "Dualahei", Length: 30},
				{Name: "Thunsheer", Length: 31}, {Name: "Unndilar", Length: 28}, {Name: "Brussendar", Length: 31},
				{Name: "Sydenstar", Length: 32}, {Name: "Fessuran", Length: 29}, {Name: "Quen'pillar", Length: 27},
				{Name: "Cuersaar", Length: 29}, {Name: "Duscar", Length: 32},
			},
			Weekdays: []string{"Miresen", "Grissen", "Whelsen", "Conthsen", "Folsen", "Yulisen", "Da'leysen"},
			Eras:     eras(Era{Name: "Post-Divergence", Abbreviation: "P.D.", Year: 1}),
		},
		Date: Date{Year: 836, Month: 1, Day: 1},
	},
	{
		Key: "eberron", Name: "Galifar (Eberron)",
		Description: "Eberron's Galifar calendar: twelve months of four seven-day weeks, 336 days, no leap years, years of the Kingdom.",
		Definition: Definition{
			Months: []Month{
				{Name: "Zarantyr", Length: 28}, {Name: "Olarune", Length: 28}, {Name: "Therendor", Length: 28},
				{Name: "Eyre", Length: 28}, {Name: "Dravago", Length: 28}, {Name: "Nymm", Length: 28},
				{Name: "Lharvion", Length: 28}, {Name: "Barrakas", Length: 28}, {Name: "Rhaan", Length: 28},
				{Name: "Sypheros", Length: 28}, {Name: "Aryth", Length: 28}, {Name: "Vult", Length: 28},
			},
			Weekdays: []string{"Sul", "Mol", "Zol", "Wir", "Zor", "Far", "Sar"},
			Seasons: []Season{
				{Name: "Spring", Month: 3, Day: 1}, {Name: "Summer", Month: 6, Day: 1},
				{Name: "Autumn", Month: 9, Day: 1}, {Name: "Winter", Month: 12, Day: 1},
			},
			Eras: eras(Era{Name: "Kingdom of Galifar", Abbreviation: "YK", Year: 1}),
		},
		Date: Date{Year: 998, Month: 1, Day: 1},
	},
}

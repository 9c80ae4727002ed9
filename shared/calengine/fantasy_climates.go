package calengine

import "strings"

// Fantasy-Calendar's built-in climates (its "preset locations"): the weather of a calendar whose
// dynamic_data.location names one (custom_location false). They are data in Fantasy-Calendar's
// source (preset_data.locations in its calendar_variables.js), one table for calendars of two
// seasons and one for four, temperatures in degrees Fahrenheit, precipitation and its intensity
// as fractions; written here as the same numbers. How Fantasy-Calendar applies them
// (calendar_season_generator.js, set_up_location_seasons): only to a calendar of 2 or 4
// seasons; a name it does not know takes the table's first climate; the table's seasons are
// Winter and Summer (Winter, Spring, Summer, Autumn for four), matched to the calendar's
// seasons by name (case aside; "Fall" is Autumn) when every season matches one, else in order.

// fcClimateSeason is one season of a built-in climate: temp_low, temp_high (°F),
// precipitation, precipitation_intensity (0 to 1), as Fantasy-Calendar writes them.
type fcClimateSeason [4]string

type fcClimate struct {
	name    string
	seasons []fcClimateSeason
}

// fcClimates are the built-in climates by the number of seasons, in Fantasy-Calendar's order.
var fcClimates = map[int][]fcClimate{
	2: {
		{"Cool and Rainy", []fcClimateSeason{{"5", "40", "0.35", "0.6"}, {"60", "85", "0.35", "0.6"}}},
		{"Cool with Dry Winter", []fcClimateSeason{{"5", "40", "0.1", "0.1"}, {"60", "85", "0.35", "0.75"}}},
		{"Warm and Rainy", []fcClimateSeason{{"10", "50", "0.4", "0.5"}, {"50", "85", "0.4", "0.6"}}},
		{"Warm with Dry Summer", []fcClimateSeason{{"10", "60", "0.3", "0.6"}, {"60", "95", "0.1", "0.2"}}},
		{"Warm with Dry Winter", []fcClimateSeason{{"32", "50", "0.15", "0.2"}, {"70", "110", "0.45", "0.6"}}},
		{"Equatorial", []fcClimateSeason{{"60", "100", "0.5", "0.3"}, {"60", "100", "0.6", "0.7"}}},
		{"Monsoon", []fcClimateSeason{{"70", "120", "0.15", "0.1"}, {"70", "120", "0.9", "0.8"}}},
		{"Desert", []fcClimateSeason{{"55", "70", "0.05", "0.1"}, {"65", "110", "0.05", "0.8"}}},
		{"Tropical Savannah", []fcClimateSeason{{"75", "115", "0.1", "0.1"}, {"75", "115", "0.85", "0.2"}}},
		{"Steppes", []fcClimateSeason{{"35", "50", "0.2", "0.3"}, {"70", "115", "0.05", "0.3"}}},
		{"Tundra", []fcClimateSeason{{"-35", "-15", "0.1", "0.1"}, {"35", "55", "0.1", "0.1"}}},
		{"Polar: Arctic", []fcClimateSeason{{"-20", "-10", "0.1", "0.1"}, {"50", "70", "0.3", "0.1"}}},
		{"Polar: Antarctic", []fcClimateSeason{{"-81", "-65", "0.1", "0.1"}, {"-22", "-15", "0.1", "0.1"}}},
	},
	4: {
		{"Cool and Rainy", []fcClimateSeason{{"5", "40", "0.35", "0.6"}, {"32.5", "62.5", "0.35", "0.6"}, {"60", "85", "0.35", "0.6"}, {"32.5", "62.5", "0.35", "0.6"}}},
		{"Cool with Dry Winter", []fcClimateSeason{{"5", "40", "0.1", "0.1"}, {"32.5", "62.5", "0.225", "0.425"}, {"60", "85", "0.35", "0.75"}, {"32.5", "62.5", "0.225", "0.425"}}},
		{"Warm and Rainy", []fcClimateSeason{{"10", "50", "0.4", "0.5"}, {"30", "67.5", "0.4", "0.55"}, {"50", "85", "0.4", "0.6"}, {"30", "67.5", "0.4", "0.55"}}},
		{"Warm with Dry Summer", []fcClimateSeason{{"10", "60", "0.3", "0.6"}, {"35", "77.5", "0.2", "0.4"}, {"60", "95", "0.1", "0.2"}, {"35", "77.5", "0.2", "0.4"}}},
		{"Warm with Dry Winter", []fcClimateSeason{{"32", "50", "0.15", "0.2"}, {"51", "80", "0.3", "0.4"}, {"70", "110", "0.45", "0.6"}, {"51", "80", "0.3", "0.4"}}},
		{"Equatorial", []fcClimateSeason{{"57", "70", "0.2", "0.2"}, {"56", "68", "0.45", "0.4"}, {"55", "66", "0.7", "0.6"}, {"56", "68", "0.45", "0.4"}}},
		{"Monsoon", []fcClimateSeason{{"70", "90", "0.1", "0.1"}, {"70", "90", "0.5", "0.45"}, {"70", "90", "0.9", "0.8"}, {"70", "90", "0.5", "0.45"}}},
		{"Warm Desert", []fcClimateSeason{{"55", "70", "0.05", "0.1"}, {"60", "90", "0.05", "0.1"}, {"65", "110", "0.05", "0.1"}, {"60", "90", "0.05", "0.1"}}},
		{"Cold Desert", []fcClimateSeason{{"7", "25", "0.2", "0.1"}, {"29.5", "51", "0.25", "0.125"}, {"52", "77", "0.3", "0.15"}, {"29.5", "51", "0.25", "0.125"}}},
		{"Tropical Savanna", []fcClimateSeason{{"75", "115", "0.1", "0.1"}, {"75", "115", "0.475", "0.15"}, {"75", "115", "0.85", "0.2"}, {"75", "115", "0.475", "0.15"}}},
		{"Steppes", []fcClimateSeason{{"35", "50", "0.2", "0.3"}, {"52.5", "82.5", "0.125", "0.3"}, {"70", "115", "0.05", "0.3"}, {"52.5", "82.5", "0.125", "0.3"}}},
		{"Tundra", []fcClimateSeason{{"-35", "-15", "0.1", "0.1"}, {"0", "20", "0.1", "0.1"}, {"35", "55", "0.1", "0.1"}, {"0", "20", "0.1", "0.1"}}},
		{"Polar: Arctic", []fcClimateSeason{{"-20", "-10", "0.1", "0.1"}, {"15", "30", "0.2", "0.1"}, {"50", "70", "0.3", "0.1"}, {"15", "30", "0.2", "0.1"}}},
		{"Polar: Antarctic", []fcClimateSeason{{"-81", "-65", "0.1", "0.1"}, {"-51.5", "-40", "0.1", "0.1"}, {"-22", "-15", "0.1", "0.1"}, {"-51.5", "-40", "0.1", "0.1"}}},
	},
}

// fcClimateSeasonNames are the built-in tables' seasons, by the number of seasons.
var fcClimateSeasonNames = map[int][]string{2: {"winter", "summer"}, 4: {"winter", "spring", "summer", "autumn"}}

// builtinClimate is the built-in climate name names for a calendar whose export's seasons are
// seasons (their names), each season's entry of the table in the export's season order; known
// is false when Fantasy-Calendar would take the table's first climate for an unknown name, ok
// false when it has no table for that many seasons.
func builtinClimate(name string, seasons []string) (c fcClimate, order []int, known, ok bool) {
	table, ok := fcClimates[len(seasons)]
	if !ok {
		return fcClimate{}, nil, false, false
	}
	c = table[0]
	for _, t := range table {
		if t.name == name {
			c, known = t, true
			break
		}
	}
	order = make([]int, len(seasons))
	names := fcClimateSeasonNames[len(seasons)]
	byName := true
	for i, s := range seasons {
		s = strings.ToLower(strings.TrimSpace(s))
		if s == "fall" && len(seasons) == 4 {
			s = "autumn"
		}
		j := -1
		for k, n := range names {
			if n == s {
				j = k
			}
		}
		if j < 0 {
			byName = false
			break
		}
		order[i] = j
	}
	if !byName {
		for i := range order {
			order[i] = i
		}
	}
	return c, order, known, true
}

#!/usr/bin/env bash
# The README's curl session: every family, using the ids the API gives back, and cleaning up
# after itself so it runs any number of times. Needs API (the campaign's base URL) and TOKEN,
# as `make run` prints them:
#   API=http://127.0.0.1:3000/api/1.0/campaigns/1 TOKEN=... scripts/curl-session.sh
set -euo pipefail
: "${API:?set API, e.g. http://127.0.0.1:3000/api/1.0/campaigns/1}" "${TOKEN:?set TOKEN (make run prints it)}"
call() { # METHOD PATH [JSON]: prints the body, fails on an HTTP error
  curl -fsS -X "$1" "$API$2" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' ${3:+-d "$3"}
}
field() { sed -E 's/.*"'"$1"'":([0-9]+).*/\1/' | head -n 1; } # first numeric field of a record

# Locations
loc=$(call POST /locations '{"name":"Waterdeep","type":"City"}')
LOC=$(echo "$loc" | field id); ENTITY=$(echo "$loc" | field entity_id)
call GET "/locations/$LOC"
call PATCH "/locations/$LOC" '{"entry":"<p>City of Splendors</p>"}'
call GET "/locations?name=water&limit=10"

# Map points of the location
POINT=$(call POST "/locations/$LOC/map_points" '{"name":"Yawning Portal","axis_x":120,"axis_y":80,"colour":"red","shape":"circle","size":"standard","icon":"pin"}' | field id)
call GET "/locations/$LOC/map_points"
call DELETE "/locations/$LOC/map_points/$POINT"

# Calendars: Kanka's parallel arrays in, structures out; move the date; the day view
CAL=$(call POST /calendars '{"name":"Harptos","month_name":["Hammer","Alturiak"],"month_length":[30,30],"weekday":["First","Second","Third"],"current_year":1492,"current_month":1,"current_day":1}' | field id)
call POST "/calendars/$CAL/advance" '{"days":3}'
call GET "/calendars/$CAL/days?from=1492-1-1&to=1492-1-5"

# Entity events and notes hang from the location's entity
EVENT=$(call POST "/entities/$ENTITY/entity_events" '{"calendar_id":'"$CAL"',"name":"Founding","day":1,"month":1,"year":1300,"length":1,"type_id":2}' | field id)
call GET "/entities/$ENTITY/entity_events"
call GET "/entities/$ENTITY/ages"
NOTE=$(call POST "/entities/$ENTITY/entity_notes" '{"name":"Rumours","entry":"<p>The mayor hides something.</p>","visibility":"all"}' | field id)
call GET "/entities/$ENTITY/entity_notes/$NOTE"

# Clean up (deleting the calendar first would hide the event with it: a calendar's delete cascades)
call DELETE "/entities/$ENTITY/entity_notes/$NOTE"
call DELETE "/entities/$ENTITY/entity_events/$EVENT"
call DELETE "/calendars/$CAL"
call DELETE "/locations/$LOC"
echo
echo "session done: location $LOC, calendar $CAL, event $EVENT, note $NOTE created and deleted"

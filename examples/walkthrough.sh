#!/usr/bin/env bash
# Create a core from one image, wait until its taste profile is ready, then search the catalogue.
# Needs curl and node; works from any directory. TASTE_API_KEY: the key `npm run demo` printed.
set -euo pipefail
BASE_URL="${BASE_URL:-http://localhost:3000}"
AUTH="Authorization: Bearer ${TASTE_API_KEY:?export TASTE_API_KEY=tpk_... (printed by npm run demo)}"
json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[process.argv[1]]))' "$1"; }

curl -sS --fail-with-body "$BASE_URL/api/v1/org/me" -H "$AUTH"; echo

# A 64x64 camel PNG as a data URL. Your own photo instead:
#   IMG="data:image/jpeg;base64,$(base64 < photo.jpg | tr -d '\n')"
IMG='data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAEAAAABACAMAAACdt4HsAAAAA1BMVEXBmmtm2RvtAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAG0lEQVRYw+3BgQAAAADDoPlT3+AEVQEAAAB8AxBAAAEZszF2AAAAAElFTkSuQmCC'
CREATED=$(curl -sS --fail-with-body "$BASE_URL/api/v1/org/cores" -H "$AUTH" -H 'Content-Type: application/json' \
  -d "{\"name\":\"Camel capsule\",\"images\":[\"$IMG\"]}")
echo "$CREATED"
CORE_ID=$(echo "$CREATED" | json coreId)

# Poll until the profile is ready (or failed), at most 60 times a second apart.
for _ in $(seq 1 60); do
  CORE=$(curl -sS --fail-with-body "$BASE_URL/api/v1/org/cores/$CORE_ID" -H "$AUTH")
  STATUS=$(echo "$CORE" | json coreStatus)
  [ "$STATUS" != processing ] && break
  sleep 1
done
echo "$CORE"
[ "$STATUS" = ready ] || { echo "core $CORE_ID is $STATUS" >&2; exit 1; }

curl -sS --fail-with-body -X POST "$BASE_URL/api/v1/org/cores/$CORE_ID/products" -H "$AUTH" \
  -H 'Content-Type: application/json' -d '{"query":"coat","gender":"women","maxPrice":400}'
echo

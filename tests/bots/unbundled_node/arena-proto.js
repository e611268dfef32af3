// The protocol's .proto text for the Node starter's src/bot.js run unbundled, read from arena.proto
// beside it. The tests put the starter's bot.js, that arena.proto and the starter's node_modules
// (its dependencies, not its build tools) next to this file: a bot folder as `npm install` leaves it.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

module.exports = fs.readFileSync(path.join(__dirname, "arena.proto"), "utf8");

// empty.mjs: the floor's module (bench/size.mjs). A module with nothing in it:
// importing it costs what importing any module costs, fetching and compiling
// included, and nothing of its own.

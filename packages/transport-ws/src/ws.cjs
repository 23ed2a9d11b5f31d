// `ws` through its CommonJS entry. An ES module importing `ws` by name gets its ESM wrapper,
// which makes Node 20 scan each of ws's CommonJS files for export names: about 50 ms at start-up,
// twice the time ws takes to load. Required from this file, ws loads as the CommonJS it is.
module.exports = require('ws');

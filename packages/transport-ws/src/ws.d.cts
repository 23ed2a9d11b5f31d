// The types of `ws.cjs`: the `ws` module itself.
import ws = require('ws');
export = ws;

// The host's floor for an activation (ADR 0300): nothing to load, an activate() that does nothing.
/* global module */
"use strict";
module.exports = { activate() {}, deactivate() {} };

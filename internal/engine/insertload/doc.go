// Package insertload bulk-loads rows in dbgen's format ('|' after every field, one row
// a line) with prepared multi-row INSERT statements in big transactions: SQLite's load
// path, and MySQL's when the server refuses LOAD DATA LOCAL.
package insertload

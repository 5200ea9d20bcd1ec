package mysql

import (
	"strings"

	"tierbench/internal/engine"
)

// minBufferPool is the least innodb_buffer_pool_size MariaDB starts with, by
// innodb_page_size: below it InnoDB refuses to start ("innodb_page_size=16384
// requires innodb_buffer_pool_size >= 6 MiB current 5 MiB", MariaDB 10.11's own
// message, and "innodb_page_size=65536 requires innodb_buffer_pool_size >= 20MiB" in
// MariaDB's bug MDEV-28471). Page sizes not listed are left to the server.
var minBufferPool = map[string]int64{
	"16384": 6 << 20,
	"16k":   6 << 20,
	"65536": 20 << 20,
	"64k":   20 << 20,
}

// CheckBuffer refuses a buffer pool below the least MariaDB starts with at the
// page size the settings give (16 KiB, its default, when they give none).
func (registered) CheckBuffer(bytes int64, settings map[string]string) error {
	page := "16384"
	for k, v := range settings {
		if engine.SettingKey(k) == engine.SettingKey("innodb_page_size") {
			page = strings.ToLower(strings.TrimSpace(v))
		}
	}
	min, ok := minBufferPool[page]
	if !ok || bytes <= 0 || bytes >= min {
		return nil
	}
	return &engine.BufferError{Engine: "mariadb", Bytes: bytes, MinBytes: min,
		Why: "InnoDB refuses to start with a smaller buffer pool at innodb_page_size " + page}
}

/** The companion's port on 127.0.0.1 unless `--port` says another (the popup looks there until told otherwise). */
export const DEFAULT_PORT = 17890;

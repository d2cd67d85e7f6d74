// Realm worker entry (filled in by the sandbox work).
export {};

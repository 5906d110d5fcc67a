package logscan

// NotErrorPhrases exposes notErrorPhrases to the tests.
func NotErrorPhrases() []string { return notErrorPhrases }

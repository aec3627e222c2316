// libSampleAnalytics.dylib, linked without local symbols (-x): its initializer is static, so only
// LC_FUNCTION_STARTS finds it, as in a stripped release build.

int sample_analytics_events;

static void __attribute__((constructor)) analytics_start_session(void) { sample_analytics_events = 1; }

int sample_analytics_track(int event) { return sample_analytics_events += event; }

// SampleNetworking.framework: the slowest initializers of the sample (a cache warm-up and a reachability
// probe), plain C names.

int sample_networking_ready;

__attribute__((constructor)) void networking_warm_cache(void) { sample_networking_ready |= 1; }

__attribute__((constructor)) void networking_start_reachability(void) { sample_networking_ready |= 2; }

int sample_networking_request(int id) { return id + sample_networking_ready; }

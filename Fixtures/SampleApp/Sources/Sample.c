// The sample app's executable: a main and two static initializers that dyld runs before it
// (STATIC_INITIALIZER intervals). Built by Scripts/make-sample-binaries; the emulator never runs it.

int sample_launch_count;

// A Swift-style mangled name, so the symbolication path demangles it: `static Sample.AppSetup.registerDefaults()`.
__attribute__((constructor)) void register_defaults(void) __asm__("_$s6Sample8AppSetupV16registerDefaultsyyFZ");
__attribute__((constructor)) void register_defaults(void) { sample_launch_count += 1; }

__attribute__((constructor)) void sample_configure_logging(void) { sample_launch_count += 2; }

int main(void) { return sample_launch_count == 3 ? 0 : 1; }

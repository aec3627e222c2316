// SampleKit.framework: one initializer named as Swift would mangle `static SampleKit.Theme.loadFonts()`.

int sample_kit_fonts;

__attribute__((constructor)) void load_fonts(void) __asm__("_$s9SampleKit5ThemeO9loadFontsyyFZ");
__attribute__((constructor)) void load_fonts(void) { sample_kit_fonts = 12; }

int sample_kit_version(void) { return 3; }

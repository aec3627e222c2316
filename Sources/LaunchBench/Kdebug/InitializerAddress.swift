/// Where a STATIC_INITIALIZER interval's function lies in its image.
///
/// dyld times each static initializer with `ScopedTimer(DBG_DYLD_TIMING_STATIC_INITIALIZER, (uint64_t)ma,
/// (uint64_t)func, 0)`, and `kdebug_trace_dyld_duration_start` writes (pair id, data1, data2, data3): START
/// arg2 is the image's mach header (its load address), arg3 the initializer (dyld-1378 `dyld/Tracing.cpp:142`).
/// Whether that pointer carries pointer-authentication bits on arm64e depends on dyld's version:
/// - dyld-852 (iOS 14): dyld3 traces `func` before signing a copy (`dyld3/AllImages.cpp:1680`); dyld2 signs
///   it first (`src/ImageLoaderMachO.cpp:2255`, traced at `:2268`).
/// - dyld-955 through dyld-1284 (iOS 15–18): `func = __builtin_ptrauth_sign_unauthenticated(func, …)` comes
///   before the timer, so the traced pointer is signed (dyld-955 `dyld/Loader.cpp:1274`/`:1276`, dyld-1042.1
///   `:1884`/`:1886`, dyld-1162 `:2195`/`:2197`, dyld-1284.13 `:2485`/`:2487`).
/// - dyld-1378 (iOS 26): the timer comes first, "Note we send the tracing event with the unauthenticated
///   pointer" (`dyld/Loader.cpp:2600`/`:2601`).
/// The signature sits above the user address bits, so it is stripped by keeping those bits: iOS maps user
/// memory below `MACH_VM_MAX_ADDRESS` 0xFC0000000, its GPU carve-out below 0x7000000000 (xnu
/// `osfmk/mach/arm/vm_param.h`), both within the low 39 bits that the mask keeps; an unsigned pointer passes
/// unchanged.
enum InitializerAddress {
    /// The bits a user-space address on iOS can occupy.
    static let userAddressMask: UInt64 = 0x7F_FFFF_FFFF

    /// `function` without pointer-authentication bits.
    static func stripped(_ function: UInt64) -> UInt64 { function & userAddressMask }

    /// The initializer's offset from its image's load address; nil when the stripped pointer does not lie
    /// within 4 GiB after the header (not a function of that image: a foreign or damaged record).
    static func offset(function: UInt64, header: UInt64) -> UInt64? {
        let address = stripped(function)
        guard address >= header, address - header < 1 << 32 else { return nil }
        return address - header
    }
}

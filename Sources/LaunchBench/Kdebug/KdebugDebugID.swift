/// The function qualifier in the low two bits of a kdebug debug id (xnu `bsd/sys/kdebug.h`: `DBG_FUNC_START`,
/// `DBG_FUNC_END`, and `DBG_FUNC_NONE` for a point event; both bits set is an interval of no length).
package enum KdebugFunction: UInt32, Sendable, Equatable, CaseIterable {
    case none = 0
    case start = 1
    case end = 2
    case startAndEnd = 3
}

/// A kdebug debug id: `class << 24 | subclass << 16 | code << 2 | function` (xnu `KDBG_CODE` and
/// `KDBG_EVENTID` in `bsd/sys/kdebug.h`).
package struct KdebugDebugID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The 32-bit value as it sits in a kd_buf.
    package let rawValue: UInt32

    /// Wraps a raw debug id.
    /// - Parameter rawValue: the 32-bit value, function bits included.
    package init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Builds a debug id from its parts (`KDBG_CODE(class, subclass, code) | function`).
    /// - Parameters:
    ///   - eventClass: the class, 8 bits (31 = `DBG_DYLD`, 7 = `DBG_TRACE`).
    ///   - subclass: the subclass, 8 bits.
    ///   - code: the code, 14 bits.
    ///   - function: the function qualifier.
    package init(eventClass: UInt8, subclass: UInt8, code: UInt16, function: KdebugFunction = .none) {
        rawValue =
            UInt32(eventClass) << 24 | UInt32(subclass) << 16 | (UInt32(code) & 0x3FFF) << 2 | function.rawValue
    }

    /// The class, bits 24–31 (`KDBG_EXTRACT_CLASS`).
    package var eventClass: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 24) }
    /// The subclass, bits 16–23 (`KDBG_EXTRACT_SUBCLASS`).
    package var subclass: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 16) }
    /// The code, bits 2–15 (`KDBG_EXTRACT_CODE`).
    package var code: UInt16 { UInt16(truncatingIfNeeded: rawValue >> 2) & 0x3FFF }
    /// START, END, both or neither (bits 0–1).
    package var function: KdebugFunction { KdebugFunction(rawValue: rawValue & 3)! }
    /// The event id: the debug id without its function bits (`KDBG_EVENTID`), which START and END share.
    package var eventID: KdebugDebugID { KdebugDebugID(rawValue: rawValue & ~3) }

    /// `0x1F070004` style, eight hex digits.
    package var description: String {
        let hex = String(rawValue, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 8 - hex.count)) + hex
    }
}

extension KdebugDebugID {
    // xnu bsd/sys/kdebug.h: DBG_TRACE (7) subclasses DBG_TRACE_DATA (0) and DBG_TRACE_STRING (1).

    /// `TRACE_DATA_NEWTHREAD`: a thread was created; arg1 = new thread id, arg2 = its pid (sent by the parent).
    package static let traceDataNewThread = KdebugDebugID(rawValue: 0x0700_0004)
    /// `TRACE_DATA_EXEC`: a process image was exec'd; arg1 = pid, on the new image's main thread.
    package static let traceDataExec = KdebugDebugID(rawValue: 0x0700_0008)
    /// `TRACE_LOST_EVENTS`: the kernel dropped events here, so what follows may be incomplete.
    package static let traceLostEvents = KdebugDebugID(rawValue: 0x0702_0008)
    /// `TRACE_STRING_GLOBAL`: a string (an image path) sent with `kdebug_trace_string`, split over records.
    package static let traceStringGlobal = KdebugDebugID(rawValue: 0x0701_0000)
    /// `TRACE_STRING_EXEC`: the exec'd process's name, 32 bytes in arg1…arg4.
    package static let traceStringExec = KdebugDebugID(rawValue: 0x0701_0008)

    // dyld Tracing.h: class DBG_DYLD (31), subclass 5 (DBG_DYLD_UUID) and 7 (DBG_DYLD_TIMING).

    /// `DBG_DYLD_UUID_MAP_A`: arg1…arg2 = image UUID, arg3 = load address (mach header), arg4 = fsid.
    package static let dyldUUIDMapA = KdebugDebugID(rawValue: 0x1F05_0000)
    /// `DBG_DYLD_UUID_MAP_B`, right after MAP_A on the same thread: arg1 = file object id, arg2 = path string id.
    package static let dyldUUIDMapB = KdebugDebugID(rawValue: 0x1F05_0004)
    /// `DBG_DYLD_TIMING_STATIC_INITIALIZER`: one C++/Swift static initializer; START arg2 = mach header.
    package static let dyldStaticInitializer = KdebugDebugID(rawValue: 0x1F07_0000)
    /// `DBG_DYLD_TIMING_LAUNCH_EXECUTABLE`: dyld's launch, ending just before `main`; START arg2 = main mach header.
    package static let dyldLaunchExecutable = KdebugDebugID(rawValue: 0x1F07_0004)
    /// `DBG_DYLD_TIMING_MAP_IMAGE`: mapping one image that is not in the shared cache; START arg2 = path string id.
    package static let dyldMapImage = KdebugDebugID(rawValue: 0x1F07_0008)
    /// `DBG_DYLD_TIMING_APPLY_FIXUPS`: rebasing and binding (once for the launch, again for each dlopen).
    package static let dyldApplyFixups = KdebugDebugID(rawValue: 0x1F07_000C)
    /// `DBG_DYLD_TIMING_ATTACH_CODESIGNATURE`: attaching an image's code signature.
    package static let dyldAttachCodeSignature = KdebugDebugID(rawValue: 0x1F07_0010)
    /// `DBG_DYLD_TIMING_BUILD_CLOSURE`: building and saving the launch closure (PrebuiltLoaderSet).
    package static let dyldBuildClosure = KdebugDebugID(rawValue: 0x1F07_0014)
    /// `DBG_DYLD_TIMING_OBJC_INIT`: the ObjC runtime's `load_images` (+load) for one image; START arg2 = mach header.
    package static let dyldObjCInit = KdebugDebugID(rawValue: 0x1F07_0020)
    /// `DBG_DYLD_TIMING_OBJC_MAP`: the ObjC runtime's `map_images` (ObjC setup).
    package static let dyldObjCMap = KdebugDebugID(rawValue: 0x1F07_0024)
    /// `DBG_DYLD_TIMING_BOOTSTRAP_START`: a point event at dyld's `start`, the first code of the new process.
    package static let dyldBootstrapStart = KdebugDebugID(rawValue: 0x1F07_0034)
    /// UIKit's Initial Frame Rendering (class `DBG_IMG` 49, subclass 0xCA, code 1): its END (0x31CA0006) is
    /// the app's first frame. From py-ios-device's lifecycle codes; unverified on iOS 17–26.
    package static let initialFrameRendering = KdebugDebugID(rawValue: 0x31CA_0004)
}

/// The dyld4 timing intervals launchbench reads (class `DBG_DYLD` 31, subclass `DBG_DYLD_TIMING` 7; dyld
/// `Tracing.h`). The raw value is the name without its `DBG_DYLD_TIMING_` prefix.
package enum DyldIntervalKind: String, Sendable, CaseIterable, Codable {
    case launchExecutable = "LAUNCH_EXECUTABLE"
    case mapImage = "MAP_IMAGE"
    case attachCodeSignature = "ATTACH_CODESIGNATURE"
    case applyFixups = "APPLY_FIXUPS"
    case buildClosure = "BUILD_CLOSURE"
    case objcMap = "OBJC_MAP"
    case objcInit = "OBJC_INIT"
    case staticInitializer = "STATIC_INITIALIZER"

    /// The event id that START and END share.
    package var eventID: KdebugDebugID {
        switch self {
        case .launchExecutable: return .dyldLaunchExecutable
        case .mapImage: return .dyldMapImage
        case .attachCodeSignature: return .dyldAttachCodeSignature
        case .applyFixups: return .dyldApplyFixups
        case .buildClosure: return .dyldBuildClosure
        case .objcMap: return .dyldObjCMap
        case .objcInit: return .dyldObjCInit
        case .staticInitializer: return .dyldStaticInitializer
        }
    }

    /// The kind of an event id, if launchbench reads it.
    /// - Parameter eventID: a debug id without its function bits.
    package init?(eventID: KdebugDebugID) {
        guard let kind = Self.allCases.first(where: { $0.eventID == eventID }) else { return nil }
        self = kind
    }

    /// A short human name (`Map image`), for timelines.
    package var title: String {
        switch self {
        case .launchExecutable: return "dyld launch"
        case .mapImage: return "Map image"
        case .attachCodeSignature: return "Attach code signature"
        case .applyFixups: return "Rebase/bind (fixups)"
        case .buildClosure: return "Build closure"
        case .objcMap: return "ObjC setup"
        case .objcInit: return "ObjC +load"
        case .staticInitializer: return "Static initializer"
        }
    }
}

/// One dyld interval whose START and END were both seen, paired by dyld's trace-pair id (arg1).
package struct DyldInterval: Hashable, Sendable {
    /// What dyld was doing.
    package var kind: DyldIntervalKind
    /// The image it concerns, when known: the path (MAP_IMAGE's path string; the image at the mach header of
    /// STATIC_INITIALIZER, OBJC_INIT and LAUNCH_EXECUTABLE through the UUID maps), or `0x…` for a mach header
    /// whose path the trace does not hold.
    package var image: String?
    /// START arg2 for the kinds that carry a mach header (STATIC_INITIALIZER, OBJC_INIT, LAUNCH_EXECUTABLE).
    package var machHeader: UInt64?
    /// For STATIC_INITIALIZER: the initializer's offset from the image's load address (START arg3 without
    /// pointer-authentication bits, minus arg2; see `InitializerAddress`); nil for the other kinds.
    package var initializerOffset: UInt64?
    /// The thread that emitted the START.
    package var threadID: UInt64
    /// dyld's trace-pair id (arg1 of both records).
    package var pairID: UInt64
    /// START's timestamp, mach ticks.
    package var startTimestamp: UInt64
    /// END's timestamp, mach ticks.
    package var endTimestamp: UInt64
    /// START in ms from the launch's origin (its exec).
    package var startMs: Double
    /// END in ms from the launch's origin.
    package var endMs: Double

    /// The length in mach ticks.
    package var ticks: UInt64 { endTimestamp &- startTimestamp }

    /// A paired interval.
    /// - Parameters:
    ///   - kind: what dyld was doing.
    ///   - image: the image path, if known.
    ///   - machHeader: START arg2 for kinds that carry a mach header.
    ///   - threadID: the emitting thread.
    ///   - pairID: dyld's trace-pair id.
    ///   - startTimestamp: START, ticks.
    ///   - endTimestamp: END, ticks.
    ///   - startMs: START in ms from the origin.
    ///   - endMs: END in ms from the origin.
    package init(
        kind: DyldIntervalKind, image: String?, machHeader: UInt64?, threadID: UInt64, pairID: UInt64,
        startTimestamp: UInt64, endTimestamp: UInt64, startMs: Double, endMs: Double
    ) {
        self.kind = kind
        self.image = image
        self.machHeader = machHeader
        self.threadID = threadID
        self.pairID = pairID
        self.startTimestamp = startTimestamp
        self.endTimestamp = endTimestamp
        self.startMs = startMs
        self.endMs = endMs
    }
}

/// Image paths by mach header: UUID_MAP_A (arg3 = load address) followed on the same thread by UUID_MAP_B
/// (arg2 = path string id).
struct ImagePaths {
    private var pathIDs: [UInt64: UInt64] = [:]
    /// Every UUID_MAP_A load address, with a MAP_B or not.
    private var headers: Set<UInt64> = []
    private let strings: KdebugStrings

    init(records: [KdebugRecord], strings: KdebugStrings) {
        self.strings = strings
        var mapA: [UInt64: UInt64] = [:]
        for record in records {
            if record.debugID.eventID == .dyldUUIDMapA {
                mapA[record.threadID] = record.arg3
                headers.insert(record.arg3)
            } else if record.debugID.eventID == .dyldUUIDMapB, let header = mapA.removeValue(forKey: record.threadID) {
                pathIDs[header] = record.arg2
            }
        }
    }

    /// Each mapped image's load address with its path (`0x…` when its path string was not traced).
    var loadAddresses: [UInt64: String] {
        var out: [UInt64: String] = [:]
        for (header, id) in pathIDs { out[header] = strings[id].flatMap { $0.isEmpty ? nil : $0 } }
        for header in headers where out[header] == nil { out[header] = DyldLaunchPhases.hex(header) }
        return out
    }

    /// The image an interval concerns (MAP_IMAGE: START arg2 is a path string id; the others: a mach header),
    /// `0x…` for a mach header without a path.
    func image(kind: DyldIntervalKind, start: KdebugRecord) -> (image: String?, header: UInt64?) {
        switch kind {
        case .mapImage:
            return (strings[start.arg2], nil)
        case .staticInitializer, .objcInit, .launchExecutable:
            let header = start.arg2
            if let id = pathIDs[header], let path = strings[id], !path.isEmpty { return (path, header) }
            return (DyldLaunchPhases.hex(header), header)
        case .attachCodeSignature, .applyFixups, .buildClosure, .objcMap:
            return (nil, nil)
        }
    }
}

/// dyld's START and END records paired by (event, trace-pair id in arg1), not by nesting. A START whose id
/// comes again before its END is left unpaired; so is an END with no open START, and a START never closed.
struct IntervalPairs {
    var paired: [(start: KdebugRecord, end: KdebugRecord, kind: DyldIntervalKind)] = []
    /// By timestamp, then pair id.
    var unpaired: [(record: KdebugRecord, kind: DyldIntervalKind)] = []
    /// The first BOOTSTRAP_START.
    var bootstrap: UInt64?

    private struct Key: Hashable {
        var event: KdebugDebugID
        var pair: UInt64
    }

    init(records: [KdebugRecord]) {
        var open: [Key: (record: KdebugRecord, kind: DyldIntervalKind)] = [:]
        for record in records {
            let id = record.debugID
            if id.eventID == .dyldBootstrapStart {
                if bootstrap == nil { bootstrap = record.timestamp }
                continue
            }
            guard let kind = DyldIntervalKind(eventID: id.eventID) else { continue }
            let key = Key(event: id.eventID, pair: record.arg1)
            switch id.function {
            case .start:
                if let earlier = open.updateValue((record, kind), forKey: key) { unpaired.append(earlier) }
            case .end:
                if let start = open.removeValue(forKey: key) {
                    paired.append((start.record, record, kind))
                } else {
                    unpaired.append((record, kind))
                }
            case .startAndEnd:
                paired.append((record, record, kind))
            case .none:
                continue
            }
        }
        unpaired += open.values
        unpaired.sort { ($0.record.timestamp, $0.record.arg1) < ($1.record.timestamp, $1.record.arg1) }
    }
}

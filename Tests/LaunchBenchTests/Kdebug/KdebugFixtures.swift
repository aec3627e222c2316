import Foundation
import LaunchBench
import TestSupport
import Testing

/// Holds the kdebug suites, so `swift test --filter Kdebug` selects them all.
@Suite("kdebug") enum KdebugTests {}

/// The binary kdebug fixtures in `Fixtures/kdebug/` (written by its `make-fixtures.py`; sources in
/// `Fixtures/README.md`).
enum KdebugFixtures {
    static let folder = PackageRoot.at("Fixtures/kdebug")

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    /// kdebug_synth.py's launch: exec at tick 1 000 000 000, pid 4243, main thread 0x11000, timebase 125/3
    /// (24 000 ticks = 1 ms).
    static func synth() throws -> KdebugTrace {
        try KdebugTrace(bytes: bytes("synth-launch.kdebug"))
    }

    static let synthExec: UInt64 = 1_000_000_000
    static let synthThread: UInt64 = 0x11000
    static let appFolder = "/private/var/containers/Bundle/Application/ABCD/Demo.app"
    static let imageA = appFolder + "/Frameworks/A.framework/A"
    static let imageB = appFolder + "/Frameworks/B.framework/B"
    static let imageC = appFolder + "/Frameworks/C.framework/C"
    static let mainExecutable = appFolder + "/Demo"

    /// A value in ms as whole nanoseconds, so tests compare exact integers.
    static func ns(_ ms: Double?) -> Int? {
        ms.map { Int(($0 * 1_000_000).rounded()) }
    }

    /// The synth records with one record removed: the first one of `event` with `function` and pair id `pair`.
    static func removing(
        _ records: [KdebugRecord], _ event: KdebugDebugID, _ function: KdebugFunction, pair: UInt64
    ) -> [KdebugRecord] {
        var records = records
        let index = records.firstIndex {
            $0.debugID.eventID == event && $0.debugID.function == function && $0.arg1 == pair
        }!
        records.remove(at: index)
        return records
    }
}

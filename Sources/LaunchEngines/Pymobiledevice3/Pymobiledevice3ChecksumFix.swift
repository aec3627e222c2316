import Foundation
import LaunchBench

/// Corrects a bug in pymobiledevice3's userspace TCP/IP stack before it can stall a launch.
///
/// pmd-pytcp 0.3.8's Internet checksum (`pmd_net_proto/lib/inet_cksum.py`, ver 3.0.7) folds carries a
/// fixed number of times and returns `0xFFFF` where `0xFFFE` is right when the last fold carries again.
/// A receiver that checks checksums (the emulated phone, and presumably a real phone's kernel) drops such a
/// TCP segment and every identical retransmission, so the tunnelled connection dies after ~25 s. The
/// sidecar is started with a `sitecustomize.py` on `PYTHONPATH` that swaps in an RFC 1071 checksum for
/// every module that imported the broken one. It changes nothing when pmd_net_proto is absent or fixed.
enum Pymobiledevice3ChecksumFix {
    static let source = """
        # Written by launchbench (Sources/LaunchEngines/Pymobiledevice3/Pymobiledevice3ChecksumFix.swift):
        # pmd_net_proto's inet_cksum returns 0xFFFF where 0xFFFE is right when its last fold carries.
        try:
            import struct as _struct
            import sys as _sys
            import pmd_net_proto.lib.inet_cksum as _checksum_module

            _broken = _checksum_module.inet_cksum

            def inet_cksum(*buffers, init=0):
                data = b"".join(bytes(buffer) for buffer in buffers)
                if len(data) % 2:
                    data += b"\\0"
                total = init + sum(_struct.unpack(f"!{len(data) // 2}H", data))
                while total >> 16:
                    total = (total & 0xFFFF) + (total >> 16)
                return ~total & 0xFFFF

            import pmd_net_proto  # binds the name in every protocol module
            for _module in list(_sys.modules.values()):
                if getattr(_module, "inet_cksum", None) is _broken:
                    _module.inet_cksum = inet_cksum
        except Exception:
            pass
        """

    /// The sidecar's full `environment` with `PYTHONPATH` led by the run's private folder holding the fix
    /// (`PrivateFolder.run()`: 0700, owned by this user, removed when launchbench exits). A folder on
    /// `PYTHONPATH` is searched before the standard library, so a shared one would run whatever another user
    /// planted there.
    /// - Throws: `LaunchBenchError.unsafeFolder` or `.cannotWrite` when the private folder cannot be had.
    static func environment(adding environment: [String: String]) throws -> [String: String] {
        let folder = try self.folder()
        var result = environment
        let existing = environment["PYTHONPATH"]
        result["PYTHONPATH"] = [folder.path, existing].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ":")
        return result
    }

    /// `<run folder>/python/sitecustomize.py` (this fix and ``HelperParentWatch``), written once per process.
    static func folder() throws -> URL {
        try written.withLock { written in
            if let written { return written }
            let folder = try PrivateFolder.ensure(PrivateFolder.run().appendingPathComponent("python"))
            let file = folder.appendingPathComponent("sitecustomize.py")
            do {
                try Data((source + "\n" + HelperParentWatch.source).utf8).write(to: file, options: .atomic)
            } catch {
                throw LaunchBenchError.cannotWrite(path: file.path, reason: error.localizedDescription)
            }
            written = folder
            return folder
        }
    }

    private static let written = Locked<URL?>(nil)
}

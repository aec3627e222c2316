import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The running launchbench's own file, symbolic links resolved: what the kernel executed, not
/// `CommandLine.arguments[0]`, which is only the name typed (`launchbench` from PATH, a symlink's path, a
/// relative path from another folder). Where it lies is where a clone's `.venv-pmd3` and `Scripts/install`'s
/// record of pymobiledevice3 are looked for.
package enum ExecutablePath {
    /// The real path, or `nil` where the system will not say.
    package static func current() -> String? {
        #if os(Linux)
            // The kernel's link to the executed file (proc(5)).
            return resolved("/proc/self/exe")
        #elseif os(macOS)
            // dyld's path of the main executable, possibly through symlinks (dyld(3)).
            var size: UInt32 = 0
            _ = _NSGetExecutablePath(nil, &size)
            var buffer = [CChar](repeating: 0, count: Int(size) + 1)
            guard _NSGetExecutablePath(&buffer, &size) == 0 else { return nil }
            return resolved(String(cString: buffer))
        #else
            return nil
        #endif
    }

    /// `path` with every symbolic link and `.`/`..` resolved (realpath(3)); `nil` when it does not exist.
    package static func resolved(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether a `.venv-pmd3` launchbench found by searching may run as this user (issue 44 item 3). Python runs
/// more of a venv than its `bin/pymobiledevice3`: the interpreter its `#!` line names (the venv's `bin/python3`,
/// a link to a system Python), `pyvenv.cfg` (which sets the prefix), every module under `lib/…/site-packages`,
/// and each `.pth` file there, whose `import` lines site.py executes and whose other lines add folders to
/// `sys.path` (Python's `Lib/site.py`, `addpackage`). A file among them that another user can change runs as
/// us, as root on a CI host that runs launchbench as root. So every path in the venv, every link's target
/// and every folder a `.pth` file adds must belong to this user or root and be writable by no one else
/// (group or others), and the folders holding them likewise (a folder only others can write is fine when
/// sticky, as `/tmp`: its entries cannot be replaced).
enum VirtualEnvironmentTrust {
    /// More entries than any pymobiledevice3 venv holds (11.45.0's: ~17,500): a larger tree is not checked.
    static let entryLimit = 200_000

    /// Why `venv` must not be run, naming the path at fault and the fix; `nil` when it may.
    static func problem(venv: String, program: String) -> String? {
        var walk = Walk(venv: venv)
        if let fault = walk.tree(venv) ?? walk.interpreter(of: program) ?? walk.pathFiles() {
            return fault + "; fix it with `chmod -R go-w \(venv)` (and chown it to yourself) or delete it"
        }
        return nil
    }

    /// Why `path`, a file or folder outside a searched tree, could be changed by another user: it (links
    /// resolved) or a folder above it belongs to someone else or is writable by others; `nil` when it cannot.
    static func pathProblem(_ path: String) -> String? {
        guard let real = ExecutablePath.resolved(path) else { return "\(path) does not exist" }
        var current = real
        while true {
            var status = stat()
            guard lstat(current, &status) == 0 else { return "\(current) cannot be read" }
            if let fault = fault(current, status, isContainer: current != real) { return fault }
            if current == "/" { return nil }
            current = (current as NSString).deletingLastPathComponent
            if current.isEmpty { current = "/" }
        }
    }

    /// What is wrong with one entry: an owner other than this user or root, or write permission for the
    /// group or others (a symbolic link's own mode means nothing; a sticky folder's entries stay their owners').
    static func fault(_ path: String, _ status: stat, isContainer: Bool = false) -> String? {
        if status.st_uid != geteuid() && status.st_uid != 0 {
            return "\(path) belongs to user \(status.st_uid), not to you or root"
        }
        let type = status.st_mode & S_IFMT
        if type == S_IFLNK { return nil }
        let sticky = type == S_IFDIR && status.st_mode & S_ISVTX != 0
        if status.st_mode & 0o002 != 0 && !(isContainer && sticky) { return "\(path) is writable by others" }
        if status.st_mode & 0o020 != 0 && !(isContainer && sticky) { return "\(path) is writable by its group" }
        return nil
    }

    /// One check of a venv: the entries seen so far (each link's target outside the venv is checked once).
    private struct Walk {
        let venv: String
        var entries = 0
        var outside = Set<String>()

        init(venv: String) {
            self.venv = ExecutablePath.resolved(venv) ?? venv
        }

        /// Every entry under `root` (links not followed; their targets checked where they point outside).
        mutating func tree(_ root: String) -> String? {
            var pending = [root]
            while let folder = pending.popLast() {
                var status = stat()
                guard lstat(folder, &status) == 0 else { return "\(folder) cannot be read" }
                if let fault = VirtualEnvironmentTrust.fault(folder, status) { return fault }
                guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
                    return "\(folder) cannot be listed"
                }
                for name in names {
                    entries += 1
                    if entries > VirtualEnvironmentTrust.entryLimit {
                        return "\(root) holds more than \(VirtualEnvironmentTrust.entryLimit) entries to check"
                    }
                    let path = folder + "/" + name
                    guard lstat(path, &status) == 0 else { return "\(path) cannot be read" }
                    if let fault = VirtualEnvironmentTrust.fault(path, status) { return fault }
                    switch status.st_mode & S_IFMT {
                    case S_IFDIR: pending.append(path)
                    case S_IFLNK: if let fault = target(of: path) { return fault }
                    default: break
                    }
                }
            }
            return nil
        }

        /// A link's target: inside the venv it is walked anyway; outside, it and the folders above it.
        mutating func target(of link: String) -> String? {
            guard let real = ExecutablePath.resolved(link) else { return nil }  // dangling: Python cannot load it
            if real == venv || real.hasPrefix(venv + "/") || !outside.insert(real).inserted { return nil }
            return VirtualEnvironmentTrust.pathProblem(real).map { "\(link) leads to \(real), and \($0)" }
        }

        /// The interpreter `program`'s `#!` line names (the venv's `bin/python3`, a link to the system's Python).
        mutating func interpreter(of program: String) -> String? {
            guard let python = PythonInterpreter.shebangInterpreter(of: program) else { return nil }
            let real = ExecutablePath.resolved(python) ?? python
            if real == venv || real.hasPrefix(venv + "/") || !outside.insert(real).inserted { return nil }
            return VirtualEnvironmentTrust.pathProblem(real).map { "its Python \(python) (\(real)): \($0)" }
        }

        /// The folders the venv's `.pth` files add to `sys.path` (a line that is neither a comment nor an
        /// `import`, relative to site-packages), when outside the venv: each is walked like the venv.
        mutating func pathFiles() -> String? {
            let lib = venv + "/lib"
            for version in (try? FileManager.default.contentsOfDirectory(atPath: lib)) ?? [] {
                let site = lib + "/" + version + "/site-packages"
                for name in (try? FileManager.default.contentsOfDirectory(atPath: site)) ?? []
                where name.hasSuffix(".pth") {
                    guard let text = try? String(contentsOfFile: site + "/" + name, encoding: .utf8) else { continue }
                    for line in text.split(whereSeparator: \.isNewline).map(String.init) {
                        let trimmed = line.trimmingCharacters(in: .whitespaces)
                        if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix("import ")
                            || trimmed.hasPrefix("import\t")
                        {
                            continue
                        }
                        let added = trimmed.hasPrefix("/") ? trimmed : site + "/" + trimmed
                        guard let real = ExecutablePath.resolved(added) else { continue }  // site.py skips it
                        if real == venv || real.hasPrefix(venv + "/") || !outside.insert(real).inserted { continue }
                        let why = "\(site)/\(name) adds \(real) to Python's path, and "
                        if let fault = VirtualEnvironmentTrust.pathProblem(real) { return why + fault }
                        if let fault = tree(real) { return why + fault }
                    }
                }
            }
            return nil
        }
    }
}

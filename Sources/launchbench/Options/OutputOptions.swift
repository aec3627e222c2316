import ArgumentParser

/// Where `run` and `demo` write their results folder.
struct OutputOptions: ParsableArguments {
    @Option(
        name: .shortAndLong,
        help: ArgumentHelp("Results folder (default: launchbench-results/<timestamp>).", valueName: "dir"),
        completion: .directory)
    var output: String?

    @Flag(help: "Reuse an --output folder holding an earlier run's results (only launchbench's own files are removed).")
    var overwrite = false

    func validate() throws {
        if let output, output.isEmpty {
            throw ValidationError("--output is empty. Name a folder, e.g. --output results.")
        }
        try OutputPaths.checkFolder(output, option: "--output", example: "results")
    }
}

extension DeviceSection {
    /// "Slowest initializer functions": kdebug's static initializers by function (`initializers.csv`), the
    /// slowest few of the kind "what to look at" is about; nil when no launch named them.
    func initializerFunctionsItem(_ causes: LaunchCauses) -> String? {
        let top = causes.images.functions.prefix(8)
        guard !top.isEmpty else { return nil }
        let head =
            "<thead><tr>"
            + ["function", "image", "median ms", "p90 ms", "launches"].map { HTMLText.text("th", $0) }.joined()
            + "</tr></thead>"
        let rows = top.map { function in
            HTMLText.element(
                "tr", [:],
                HTMLText.element("td", [:], HTMLText.text("code", function.function))
                    + HTMLText.text("td", function.image) + HTMLText.text("td", ReportText.ms(function.medianMs))
                    + HTMLText.text("td", ReportText.ms(function.p90Ms)) + HTMLText.text("td", "\(function.launches)"))
        }
        return HTMLText.element(
            "li", [:],
            HTMLText.escape("Slowest initializer functions (kdebug, named from the app's binaries):")
                + HTMLText.element("table", ["class": "summary"], head + "<tbody>" + rows.joined() + "</tbody>"))
    }
}

extension Duration {
    /// The whole duration in seconds, fraction included (`components.seconds` alone drops it: 0.5 s is 0).
    public var totalSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

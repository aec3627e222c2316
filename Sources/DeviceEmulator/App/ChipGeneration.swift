/// The Apple chip of an iPhone model, the fallback key of `AppProfile.models`.
///
/// iPhone identifiers advance one major number per chip generation: `iPhone5,x` is the A6 (2012),
/// `iPhone6,x` the A7 (2013) … `iPhone17,x` the A18 (2024). So the chip is `A<major + 1>`.
package enum ChipGeneration {
    /// `A7` for `iPhone6,1`; `nil` for identifiers that are not iPhones (iPad, iPod, garbage).
    package static func chip(for productType: String) -> String? {
        guard let number = generation(for: productType) else { return nil }
        return "A\(number)"
    }

    /// The chip number (7 for A7), `nil` when unknown.
    package static func generation(for productType: String) -> Int? {
        guard productType.hasPrefix("iPhone") else { return nil }
        let rest = productType.dropFirst("iPhone".count)
        guard let major = rest.split(separator: ",").first.flatMap({ Int($0) }), major >= 1 else { return nil }
        return major + 1
    }
}

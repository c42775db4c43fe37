/// The kind of a change (Foundation's enumeration): Avocet's observable properties are set.
public enum NSKeyValueChange: UInt, Sendable {
    /// `setting`: the value was set (the only kind Avocet reports); `insertion`, `removal`,
    /// `replacement`: changes to a collection's elements.
    case setting = 1, insertion = 2, removal = 3, replacement = 4
}

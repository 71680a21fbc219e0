"""The units math_equiv knows: what kind of quantity each measures and, when fixed, its exact size.

A unit is ``(kind, canonical name, power)``: ``("length", "cm", 2)`` is a square centimetre. SI prefixes apply to
every SI unit of the table (:data:`_SI`), by symbol (``k`` + ``J`` = ``kJ``, ``µ`` + ``m`` = ``µm``) and by name
(``kilo`` + ``joule`` = ``kilojoule``): no list of prefixed units is kept. Sizes are exact fractions of the kind's
base unit; a unit whose size is a convention (a ton, a cup, a calorie, a prefixed byte: 1000 or 1024 bytes?) or whose
conversion is not a factor (degrees Celsius and Fahrenheit) has none, so it never converts and a value in it
for another unit of its kind is a wrong answer, not a rounding.

Symbols are matched case-sensitively (``mW`` is not ``MW``); names in any case. Composed symbols that read as
words (``am``, ``pm``, ``as``) are left out.
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["UNITS", "lookup", "unit_size"]

#: the SI prefixes: symbol, name, power of ten (micro written ``µ``; ``\\mu``, ``μ`` and ``u`` read as it)
_PREFIXES = (
    ("Q", "quetta", 30), ("R", "ronna", 27), ("Y", "yotta", 24), ("Z", "zetta", 21), ("E", "exa", 18),
    ("P", "peta", 15), ("T", "tera", 12), ("G", "giga", 9), ("M", "mega", 6), ("k", "kilo", 3),
    ("h", "hecto", 2), ("da", "deca", 1), ("d", "deci", -1), ("c", "centi", -2), ("m", "milli", -3),
    ("µ", "micro", -6), ("n", "nano", -9), ("p", "pico", -12), ("f", "femto", -15), ("a", "atto", -18),
    ("z", "zepto", -21), ("y", "yocto", -24), ("r", "ronto", -27), ("q", "quecto", -30),
)  # fmt: skip
#: SI units (and units used with SI prefixes): kind, symbols, names, size in the kind's base unit (None: none)
_SI: tuple[tuple[str, tuple[str, ...], tuple[str, ...], Fraction | None], ...] = (
    ("length", ("m",), ("meter", "metre"), Fraction(1)),
    ("time", ("s",), ("second",), Fraction(1)),
    ("mass", ("g",), ("gram", "gramme"), Fraction(1)),
    ("volume", ("L", "l"), ("liter", "litre"), Fraction(1000)),  # base: the millilitre
    ("energy", ("J",), ("joule",), Fraction(1)),
    ("energy", ("eV",), ("electronvolt", "electron-volt"), Fraction(1602176634, 10**28)),
    ("power", ("W",), ("watt",), Fraction(1)),
    ("force", ("N",), ("newton",), Fraction(1)),
    ("pressure", ("Pa",), ("pascal",), Fraction(1)),
    ("pressure", ("bar",), ("bar",), Fraction(100000)),
    ("frequency", ("Hz",), ("hertz",), Fraction(1)),
    ("voltage", ("V",), ("volt",), Fraction(1)),
    ("current", ("A",), ("ampere", "amp"), Fraction(1)),
    ("resistance", ("Ω",), ("ohm",), Fraction(1)),
    ("charge", ("C",), ("coulomb",), Fraction(1)),
    ("capacitance", ("F",), ("farad",), Fraction(1)),
    ("inductance", ("H",), ("henry",), Fraction(1)),
    ("magnetic_field", ("T",), ("tesla",), Fraction(1)),
    ("magnetic_flux", ("Wb",), ("weber",), Fraction(1)),
    ("amount", ("mol",), ("mole",), Fraction(1)),
    ("temperature", ("K",), ("kelvin",), Fraction(1)),
    ("energy_cal", ("cal",), ("calorie",), None),  # thermochemical or international: a convention
    ("information", ("B",), ("byte",), Fraction(8)),  # base: the bit
    ("information", ("bit",), ("bit",), Fraction(1)),
)
#: prefixes never composed with a unit: deca/hecto/deci/centi symbols with bytes and bits, sub-unit bytes
_NO_PREFIX = {
    "information": frozenset(("da", "h", "d", "c", "m", "µ", "n", "p", "f", "a", "z", "y", "r", "q"))
}
#: composed symbols that read as words or other units: never units
_NOT_SYMBOLS = frozenset(("am", "pm", "as", "dam", "das", "hm", "pH", "um", "us"))

#: units outside the SI (no prefixes): kind, canonical name, spellings, size in the kind's base unit
_OTHER: tuple[tuple[str, str, str, Fraction | None], ...] = (
    ("length", "in", "in inch inches", Fraction(254, 10000)),
    ("length", "ft", "ft foot feet", Fraction(3048, 10000)),
    ("length", "yd", "yd yard yards", Fraction(9144, 10000)),
    ("length", "mi", "mi mile miles", Fraction(1609344, 1000)),
    ("time", "s", "sec secs", Fraction(1)),
    ("time", "min", "min mins minute minutes", Fraction(60)),
    ("time", "h", "h hr hrs hour hours", Fraction(3600)),
    ("time", "day", "day days", Fraction(86400)),
    ("time", "week", "week weeks", Fraction(604800)),
    ("time", "month", "month months", None),
    ("time", "year", "year years yr yrs", None),
    ("mass", "lb", "lb lbs pound pounds", Fraction(45359237, 100000)),
    ("mass", "oz", "oz ounce ounces", Fraction(45359237, 1600000)),
    ("mass", "t", "ton tons tonne tonnes", None),
    ("money", "dollar", "dollar dollars", Fraction(100)),
    ("money", "cent", "cent cents", Fraction(1)),
    ("money", "euro", "euro euros", None),
    ("angle", "deg", "deg degree degrees", None),
    ("angle", "rad", "rad radian radians", None),
    ("volume", "gal", "gallon gallons gal", None),
    ("volume", "cup", "cup cups", None),
    ("volume", "pint", "pint pints", None),
    ("volume", "quart", "quart quarts", None),
    ("volume", "tbsp", "tbsp tablespoon tablespoons", None),
    ("volume", "tsp", "tsp teaspoon teaspoons", None),
    ("pressure", "atm", "atm atmosphere atmospheres", Fraction(101325)),
    ("pressure", "mmHg", "mmHg", None),
    ("energy", "kWh", "kWh", Fraction(3600000)),
    ("temperature", "°C", "°C celsius centigrade", None),
    ("temperature", "°F", "°F fahrenheit", None),
    ("information", "KiB", "KiB kibibyte kibibytes", Fraction(8 * 2**10)),
    ("information", "MiB", "MiB mebibyte mebibytes", Fraction(8 * 2**20)),
    ("information", "GiB", "GiB gibibyte gibibytes", Fraction(8 * 2**30)),
)
#: areas with names of their own: (side unit, power 2) with the side's size
_AREAS = (("length", "hm", "ha hectare hectares", Fraction(100)), ("length", "acre", "acre acres", None))

Unit = tuple[str, str, int]

#: spelling -> (kind, canonical name, power); symbols case-sensitive, names lower-case
UNITS: dict[str, Unit] = {}
#: (kind, canonical name) -> exact size in the kind's base unit
_SIZES: dict[tuple[str, str], Fraction | None] = {}


def _add(spelling: str, kind: str, canon: str, size: Fraction | None, power: int = 1) -> None:
    UNITS.setdefault(spelling, (kind, canon, power))
    _SIZES.setdefault((kind, canon), size)


def _build() -> None:
    for kind, symbols, names, size in _SI:
        for sym in symbols:
            _add(sym, kind, symbols[0], size)
        for name in names:
            for spelling in (name, name + "s"):
                _add(spelling, kind, symbols[0], size)
        skip = _NO_PREFIX.get(kind, frozenset())
        for psym, pname, exp in _PREFIXES:
            if psym in skip or (psym in ("da", "h") and symbols[0] not in ("Pa", "L", "g", "m")):
                continue
            # a prefixed byte is 1000 or 1024 bytes: no size
            psize = None if size is None or kind == "information" else size * Fraction(10) ** exp
            canon = psym + symbols[0]
            for sym in symbols:
                if psym + sym not in _NOT_SYMBOLS:
                    _add(psym + sym, kind, canon, psize)
            for name in names:
                for spelling in (pname + name, pname + name + "s"):
                    _add(spelling, kind, canon, psize)
    for kind, canon, spellings, size in _OTHER:
        for spelling in spellings.split():
            _add(spelling, kind, canon, size)
    for kind, canon, spellings, size in _AREAS:
        for spelling in spellings.split():
            UNITS.setdefault(spelling, (kind, canon, 2))
        _SIZES.setdefault((kind, canon), size)
    # the micro sign's other spellings
    for key in [k for k in UNITS if k.startswith("µ")]:
        for alias in ("μ", "u"):
            if alias + key[1:] not in _NOT_SYMBOLS and alias + key[1:] not in ("us",):
                UNITS.setdefault(alias + key[1:], UNITS[key])
    # the ohm sign (U+2126) and "ohms"
    for key in [k for k in UNITS if k.endswith("Ω")]:
        UNITS.setdefault(key[:-1] + "\u2126", UNITS[key])


_build()


def lookup(word: str, *, loose: bool) -> Unit | None:
    """The unit ``word`` spells: a symbol exactly as written, a name in any case (``loose``, for text inside
    ``\\text{}``: a short word in any case too), or None. A composed symbol is never read in another case
    ("KJ", "MS" are no units: ``MW`` and ``mW`` differ by a factor of 10^9)."""
    hit = UNITS.get(word)
    if hit is None and (loose or len(word) > 2):
        hit = _FOLDED.get(word.lower())
    return hit


#: the spellings read in any case: names, the spellings outside the SI, and the unprefixed or everyday
#: metric symbols (``KM``, ``Kg``, ``ML``)
_FOLDED: dict[str, Unit] = {
    k.lower(): v
    for k, v in UNITS.items()
    if (len(k) > 3 and k.isalpha() and k.islower())
    or k in {w for _, _, spellings, _ in _OTHER for w in spellings.split()}
    or k in ("mm", "cm", "m", "km", "s", "mg", "g", "kg", "ml", "l")
}


def unit_size(unit: Unit) -> Fraction | None:
    """The exact size of one ``unit`` in its kind's base unit (raised to its power), or None when it has none."""
    size = _SIZES.get(unit[:2])
    return None if size is None else size ** unit[2]

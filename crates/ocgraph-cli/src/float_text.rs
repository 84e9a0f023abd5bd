//! Floats written as text (weights in exports, scores and distances in `run --out`): the
//! shortest decimal that reads back to the same value, in exponent form below 1e-4 and from
//! 1e16 up (`3e-5`, where Python's `repr` writes `3e-05`; both read back alike). Plain
//! decimals there would be long (float32's smallest weight has 45 digits after the point) and
//! are read back wrongly by approximate parsers, such as pandas' default one, which takes that
//! weight for 0.

use std::fmt;

/// Displays the float it holds as this module's comment says.
pub(crate) struct FloatText<T>(pub T);

macro_rules! float_text {
    ($t:ty) => {
        impl fmt::Display for FloatText<$t> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let (x, a) = (self.0, self.0.abs());
                if a != 0.0 && a.is_finite() && !(1e-4..1e16).contains(&a) {
                    write!(f, "{x:e}")
                } else {
                    write!(f, "{x}")
                }
            }
        }
    };
}

float_text!(f32);
float_text!(f64);

#[cfg(test)]
mod tests {
    use super::FloatText;

    #[test]
    fn tiny_and_huge_floats_take_the_exponent_form_and_read_back_exactly() {
        let f32s = [
            0.0f32,
            -0.0,
            1.0,
            0.5,
            255.0,
            1e-4,
            9.9e-5,
            f32::from_bits(1),
            f32::MIN_POSITIVE,
            f32::MAX,
            1e16,
            12345.678,
        ];
        let text: Vec<String> = f32s.iter().map(|&x| FloatText(x).to_string()).collect();
        assert_eq!(
            text,
            [
                "0",
                "-0",
                "1",
                "0.5",
                "255",
                "0.0001",
                "9.9e-5",
                "1e-45",
                "1.1754944e-38",
                "3.4028235e38",
                "1e16",
                "12345.678"
            ]
        );
        for (x, t) in f32s.iter().zip(&text) {
            assert_eq!(t.parse::<f32>().unwrap().to_bits(), x.to_bits(), "{t}");
        }
        let f64s = [1.0 / 3.0, 2.5e-7, 1e300, f64::INFINITY, f64::NEG_INFINITY, 123456789.0];
        let text: Vec<String> = f64s.iter().map(|&x| FloatText(x).to_string()).collect();
        assert_eq!(text, ["0.3333333333333333", "2.5e-7", "1e300", "inf", "-inf", "123456789"]);
        for (x, t) in f64s.iter().zip(&text) {
            assert_eq!(t.parse::<f64>().unwrap(), *x, "{t}");
        }
    }
}

// The input/output layer for hosted programs: shape text and printing (iostreams).
#pragma once

#include <cxmat/io/print.hpp>
#include <cxmat/io/shape_text.hpp>

// Precompiled header of the test executables: kapi's, plus GoogleTest.
#ifndef KAPI_PCH_TEST_PCH_H
#define KAPI_PCH_TEST_PCH_H

#include "pch/kapi_pch.h"

#include <gtest/gtest.h>

#endif

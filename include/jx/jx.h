// Umbrella header: everything a jx user needs.
#pragma once

#include <jx/array.h>
#include <jx/distributed.h>
#include <jx/dtype.h>
#include <jx/error.h>
#include <jx/jit.h>
#include <jx/lax.h>
#include <jx/linalg.h>
#include <jx/numpy.h>
#include <jx/profiler.h>
#include <jx/nn.h>
#include <jx/random.h>
#include <jx/scipy.h>
#include <jx/shape.h>
#include <jx/sharding.h>
#include <jx/transforms.h>

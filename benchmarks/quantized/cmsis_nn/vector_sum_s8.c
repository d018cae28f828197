// Copyright the cxmat authors.
// SPDX-License-Identifier: BSL-1.0
// arm_vector_sum_s8 for a CMSIS-NN checkout without Source/arm_vector_sum_s8.c: CMSIS-NN's MVE
// kernels need it (arm_batch_matmul_s8 calls it on every call; TFLite Micro calls it once per
// fully connected layer, for the kernel sums), and a subset of CMSIS-NN may lack it. Written from
// the declaration in arm_nnfunctions.h, not from CMSIS-NN's source: for each of vector_rows rows,
// vector_sum_buf[i] = lhs_offset * sum_j (vector_data[i][j] + rhs_offset) + bias_data[i] (no bias
// where bias_data is NULL). With MVE, sixteen values per VADDVA, the rest of a row under a tail
// predicate, as CMSIS-NN's MVE code sums; the benchmark's build uses the checkout's own file
// instead where it has one.
#include "arm_nnfunctions.h"

#if defined(ARM_MATH_MVEI)
#include <arm_mve.h>
#endif

arm_cmsis_nn_status arm_vector_sum_s8(int32_t *vector_sum_buf,
                                      const int32_t vector_cols,
                                      const int32_t vector_rows,
                                      const int8_t *vector_data,
                                      const int32_t lhs_offset,
                                      const int32_t rhs_offset,
                                      const int32_t *bias_data)
{
    for (int32_t i = 0; i < vector_rows; i++)
    {
        const int8_t *row = vector_data + i * vector_cols;
        int32_t sum = 0;
#if defined(ARM_MATH_MVEI)
        for (int32_t j = 0; j < vector_cols; j += 16)
        {
            sum = vaddvaq_s8(sum, vldrbq_z_s8(row + j, vctp8q((uint32_t)(vector_cols - j))));
        }
#else
        for (int32_t j = 0; j < vector_cols; j++)
        {
            sum += row[j];
        }
#endif
        sum = lhs_offset * (sum + vector_cols * rhs_offset);
        vector_sum_buf[i] = bias_data != NULL ? sum + bias_data[i] : sum;
    }
    return ARM_CMSIS_NN_SUCCESS;
}

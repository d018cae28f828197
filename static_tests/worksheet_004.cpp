// Worksheet 004: 5 x 6 self-attention with H = 1 and H = 3 heads (no W_o), the printed weights
// and outputs, and permutation equivariance. References: the digits the worksheet printed
// (numpy precision=1) and numpy float64 (static_tests/reference/worksheets.py) within 1e-9.
#include <type_traits>

#include <cxmat/cxmat.hpp>

#include "support/checks.hpp"

namespace ws004 {

using cxmat::matrix;
using cxmat_test::matches_printed;
using cxmat_test::matches_printed_2sig;
using cxmat_test::matches_reference;
using m56 = matrix<double, 5, 6>;
using m55 = matrix<double, 5, 5>;
using m66 = matrix<double, 6, 6>;

constexpr m56 X{{{0.7, -0.8, -1.2, -1., -0., -0.3},
                 {2.7, 0.1, 1.6, 1.8, 1.5, 0.3},
                 {0.1, 2.6, -0.1, -1.3, -0.5, -0.7},
                 {1.1, 1.5, 1., -0.5, 0.4, 0.4},
                 {-0.7, -0.7, 0.7, -1.5, -0.8, 1.}}};
constexpr m66 Wq{{{-1.7, 1.6, 0.9, -0.5, 0.4, -1.},
                  {-0.4, 1., -0.3, 1., 0.5, 1.1},
                  {0.4, -0.9, -1., 0.5, -1.4, 0.},
                  {0.3, 1.4, -1.2, 0.2, 0.1, 1.6},
                  {-0.8, 0.8, -0.7, -1.3, 0.3, 0.8},
                  {1.1, 0.3, -1.5, -2.3, 2.2, -0.7}}};
constexpr m66 Wk{{{0.3, -0.4, -1.3, 0.3, -1.7, 1.1},
                  {-2.3, -1.1, 0.6, -1.2, 2.2, 0.3},
                  {1.1, -0.4, -0.5, 1.9, -1.1, -1.2},
                  {-0.4, 1., -1.7, 0., -3.3, -1.4},
                  {-0.9, -1.1, -1., 1.4, 1.3, 1.2},
                  {-0.7, 0.4, 0.4, -1.4, -0.2, -0.5}}};
constexpr m66 Wv{{{-0.1, 0.7, 1., -0.1, 1.6, 0.9},
                  {0.4, -1., -0.7, -0.6, -0.9, -0.1},
                  {-0.4, 0.5, -1.4, 0.1, 0.6, 0.4},
                  {1.4, -1.3, -1.3, -0.6, 1.6, -0.2},
                  {-0.4, -0.6, -1.4, -1., 0.4, -0.8},
                  {0.2, 0.5, 0.4, -0.5, 1.4, 2.3}}};

// (a) Self-attention, H = 1: output 5 x 6 and one 5 x 5 weight matrix.
constexpr auto single = cxmat::multi_head_attention_with_weights<1>(X, Wq, Wk, Wv);
static_assert(std::is_same_v<std::remove_cv_t<decltype(single.output)>, m56>);
static_assert(single.output == cxmat::self_attention(X, Wq, Wk, Wv));
static_assert(single.weights[0] == cxmat::attention_weights(X * Wq, X * Wk));
static_assert(matches_printed(single.output, m56{{{-0.7, -0.9, 0.5, 0.1, -5.5, -1.1},
                                                  {-0.4, 0.6, 0.6, -0.6, 2., 0.5},
                                                  {0.3, -0.1, -2.4, -1.9, 4.9, 1.8},
                                                  {-0.7, -0.7, 0.4, -0.1, -4.5, -0.7},
                                                  {-2., 3.3, 2.1, 1.6, -1.3, 2.8}}}, 0.05));
static_assert(matches_printed_2sig(single.weights[0], m55{{{4.9e-07, 4.0e-14, 9.9e-01, 1.7e-05, 6.1e-03},
                                                           {4.8e-01, 3.6e-01, 1.5e-01, 2.1e-02, 4.0e-04},
                                                           {1.9e-02, 5.8e-01, 9.4e-02, 2.8e-01, 3.2e-02},
                                                           {3.0e-02, 1.2e-02, 8.5e-01, 9.9e-02, 1.1e-02},
                                                           {4.7e-04, 7.3e-03, 1.6e-02, 4.0e-02, 9.4e-01}}}));
static_assert(matches_reference(single.output, m56{{ {-0.6983593149151099, -0.913143257389956, 0.5405749431765522, 0.0603375071166151, -5.474996141243418, -1.1349924674833383}, {-0.3729825463671143, 0.5720346497396365, 0.6180929059328886, -0.5555598516643373, 2.0325485302598523, 0.5304026509270898}, {0.2927179017272785, -0.12522126259905447, -2.3751123315963176, -1.9298214435894678, 4.9293075267068245, 1.7842604266232995}, {-0.702961366952036, -0.6722947980698221, 0.43915009608771444, -0.06358803727719921, -4.498290280161079, -0.7390214660508552}, {-1.9684628509489417, 3.2628438073753636, 2.0712883743782293, 1.5785299682861527, -1.2872636467507608, 2.844491960089732} }}));
static_assert(matches_reference(single.weights[0], m55{{ {4.877786685146027e-07, 3.9826982352022445e-14, 0.9939257333149099, 1.6544684869436115e-05, 0.006057234221512466}, {0.4768572372423013, 0.35657491937070473, 0.14518225482554772, 0.020983791525491517, 0.00040179703595487093}, {0.01859164047089452, 0.5777504497603206, 0.09426898086139177, 0.277076905486313, 0.03231202342108006}, {0.02991650278772928, 0.012406073136286642, 0.8475341921819504, 0.09931056761744213, 0.010832664276591557}, {0.00047272946520450715, 0.00734479852101775, 0.01638361776648068, 0.040029265660025355, 0.9357695885872718} }}));

// (b) Multi-head, H = 3 (d_k = d_v = 2 per head): output 5 x 6 and three 5 x 5 weight matrices.
constexpr auto three = cxmat::multi_head_attention_with_weights<3>(X, Wq, Wk, Wv);
static_assert(std::is_same_v<std::remove_cv_t<decltype(three.weights)>, cxmat::batch<double, 3, 5, 5>>);
static_assert(three.output == cxmat::multi_head_attention<3>(X, Wq, Wk, Wv));
static_assert(three.weights == cxmat::multi_head_attention_weights<3>(X, Wq, Wk));
static_assert(matches_printed(three.output, m56{{{-0.7, -0.9, 0.7, 0.2, -1.5, 2.9},
                                                 {-1.1, 0.9, -3.9, -2.9, -3., -0.5},
                                                 {-0.7, -0.9, 1.6, 1.2, 5.8, 1.5},
                                                 {-0.7, -0.7, -3.8, -2.8, -5.1, -0.9},
                                                 {-0.2, 0.3, 1., 0.2, -1.3, 3.}}}, 0.05));
static_assert(matches_printed_2sig(three.weights[0], m55{{{1.8e-04, 1.2e-03, 9.5e-01, 4.6e-02, 2.3e-05},
                                                          {5.1e-01, 1.7e-02, 3.6e-01, 1.0e-02, 1.0e-01},
                                                          {6.4e-04, 2.5e-03, 9.4e-01, 5.4e-02, 9.7e-05},
                                                          {3.8e-02, 2.6e-02, 8.4e-01, 8.8e-02, 1.0e-02},
                                                          {2.6e-02, 3.2e-01, 4.5e-02, 5.3e-01, 7.7e-02}}}));
static_assert(matches_printed_2sig(three.weights[1], m55{{{3.1e-05, 2.0e-18, 9.0e-01, 4.8e-07, 9.7e-02},
                                                          {6.1e-04, 1.0e+00, 9.6e-05, 8.1e-04, 9.0e-07},
                                                          {3.2e-03, 1.1e-01, 3.8e-04, 1.5e-02, 8.7e-01},
                                                          {1.0e-02, 9.7e-01, 2.3e-03, 1.8e-02, 2.0e-03},
                                                          {1.1e-01, 7.5e-04, 7.9e-01, 4.0e-02, 5.4e-02}}}));
static_assert(matches_printed_2sig(three.weights[2], m55{{{3.1e-05, 3.9e-05, 1.8e-02, 3.6e-03, 9.8e-01},
                                                          {4.3e-01, 4.7e-03, 4.9e-01, 7.1e-02, 6.8e-03},
                                                          {2.3e-01, 6.7e-01, 2.2e-02, 6.3e-02, 1.5e-02},
                                                          {1.4e-02, 4.5e-05, 9.1e-01, 2.7e-02, 4.4e-02},
                                                          {2.8e-06, 3.9e-03, 1.0e-04, 8.4e-04, 1.0e+00}}}));
static_assert(matches_reference(three.output, m56{{ {-0.6879860936950729, -0.8784334612432638, 0.7005436225357973, 0.21656648938414022, -1.4532854575584548, 2.8838830973193588}, {-1.1465885275298302, 0.9493331039663937, -3.9223276836818965, -2.8959211569682517, -2.973119238037966, -0.5095206083875463}, {-0.6860615782682243, -0.8652554708270304, 1.5614392259053698, 1.2074668128671084, 5.791696501180408, 1.5453932864674083}, {-0.6826450338346697, -0.6616304508785804, -3.777515944609902, -2.8151041445693363, -5.075610626642704, -0.8792789986465563}, {-0.23469971220614194, 0.3154640352853675, 0.9520536726119009, 0.19897863278273692, -1.3479741694134146, 2.9557311115735243} }}));
static_assert(matches_reference(three.weights[0], m55{{ {0.00018231485066549263, 0.0012053903978304023, 0.952811070361355, 0.04577816474325387, 2.3059646895116918e-05}, {0.5080154810506408, 0.017160700443323938, 0.36162425093458506, 0.010281262344364921, 0.10291830522708524}, {0.0006374018178439947, 0.0025029557474563462, 0.9426395887067663, 0.05412333968625784, 9.671404167537845e-05}, {0.03761389793632941, 0.026337447620529305, 0.8378719384244531, 0.08768759358758789, 0.010489122431100392}, {0.02633032241962577, 0.32214784786226247, 0.04535024698855161, 0.5288808442419739, 0.07729073848758618} }}));
static_assert(matches_reference(three.weights[1], m55{{ {3.143562935888156e-05, 2.0291062713890824e-18, 0.9025786255160475, 4.805825858644489e-07, 0.09738945827200772}, {0.0006126472975884676, 0.9984755144667079, 9.628972965910297e-05, 0.0008146458119234084, 9.026941210955826e-07}, {0.003200371697063004, 0.10845721733857211, 0.0003834762271649013, 0.014869542883773795, 0.8730893918534263}, {0.010005803476882185, 0.9682198128167642, 0.0022650676719988207, 0.01754962041102432, 0.001959695623330404}, {0.110336694222884, 0.0007539608857197938, 0.7947769611382828, 0.040066291617127506, 0.054066092135985906} }}));
static_assert(matches_reference(three.weights[2], m55{{ {3.1095033550281686e-05, 3.8516600731151484e-05, 0.01754603805561031, 0.0036249432362074623, 0.9787594070739007}, {0.42873758114779165, 0.004707135292184763, 0.48851830596791523, 0.07124086502829813, 0.006796112563810131}, {0.2315074311433965, 0.6689886668218804, 0.021740967165942145, 0.06319483046502562, 0.014568104403755493}, {0.014069074461474028, 4.5205980283717446e-05, 0.9140534015590651, 0.027491917502395373, 0.0443404004967817}, {2.792414162672321e-06, 0.0038659877395108523, 0.00010455334249826803, 0.0008356142376034277, 0.9951910522662248} }}));

// (c) The results differ: each head routes the values with its own 5 x 5 weights.
static_assert(!cxmat::approx_equal(single.output, three.output, 1e-3));

// (d) Swapping the first two tokens swaps the first two output rows (permutation equivariance),
// and the weights are permuted on both axes: W'(i, j) = W(p(i), p(j)).
constexpr auto Xp = cxmat::permute_rows<1, 0, 2, 3, 4>(X);
static_assert(Xp != X);
template <class M>
constexpr M permute_both(const M& w) {
  return cxmat::transpose(cxmat::permute_rows<1, 0, 2, 3, 4>(cxmat::transpose(cxmat::permute_rows<1, 0, 2, 3, 4>(w))));
}
constexpr auto single_p = cxmat::multi_head_attention_with_weights<1>(Xp, Wq, Wk, Wv);
constexpr auto three_p = cxmat::multi_head_attention_with_weights<3>(Xp, Wq, Wk, Wv);
static_assert(cxmat::approx_equal(single_p.output, cxmat::permute_rows<1, 0, 2, 3, 4>(single.output), 1e-12, 1e-15));
static_assert(cxmat::approx_equal(three_p.output, cxmat::permute_rows<1, 0, 2, 3, 4>(three.output), 1e-12, 1e-15));
static_assert(cxmat::approx_equal(single_p.weights[0], permute_both(single.weights[0]), 1e-12, 1e-300));
static_assert(cxmat::approx_equal(three_p.weights[0], permute_both(three.weights[0]), 1e-12, 1e-300));
static_assert(cxmat::approx_equal(three_p.weights[1], permute_both(three.weights[1]), 1e-12, 1e-300));
static_assert(cxmat::approx_equal(three_p.weights[2], permute_both(three.weights[2]), 1e-12, 1e-300));
// The worksheet's printed results after the permutation.
static_assert(matches_printed(three_p.output, m56{{{-1.1, 0.9, -3.9, -2.9, -3., -0.5},
                                                   {-0.7, -0.9, 0.7, 0.2, -1.5, 2.9},
                                                   {-0.7, -0.9, 1.6, 1.2, 5.8, 1.5},
                                                   {-0.7, -0.7, -3.8, -2.8, -5.1, -0.9},
                                                   {-0.2, 0.3, 1., 0.2, -1.3, 3.}}}, 0.05));
static_assert(matches_printed_2sig(single_p.weights[0], m55{{{3.6e-01, 4.8e-01, 1.5e-01, 2.1e-02, 4.0e-04},
                                                             {4.0e-14, 4.9e-07, 9.9e-01, 1.7e-05, 6.1e-03},
                                                             {5.8e-01, 1.9e-02, 9.4e-02, 2.8e-01, 3.2e-02},
                                                             {1.2e-02, 3.0e-02, 8.5e-01, 9.9e-02, 1.1e-02},
                                                             {7.3e-03, 4.7e-04, 1.6e-02, 4.0e-02, 9.4e-01}}}));

}  // namespace ws004
